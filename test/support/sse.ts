/** Parses an SSE body into `[event, data]` pairs and the comment lines. */
export function parseSse(body: string): { events: [string, any][]; comments: string[] } {
  const events: [string, any][] = [];
  const comments: string[] = [];
  for (const frame of body.split('\n\n').filter(Boolean)) {
    const lines = frame.split('\n');
    if (lines[0].startsWith(':')) comments.push(lines[0]);
    const name = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
    if (name) events.push([name, JSON.parse(data ?? 'null')]);
  }
  return { events, comments };
}
