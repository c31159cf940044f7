/** One part of an MCP tool result's `content` (the SDK's union, read loosely). */
export interface McpContentPart {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/**
 * The text a model gets for a tool result: text parts as they are, joined by blank lines;
 * images, audio and binary resources as a one-line description (`[image image/png, 2048
 * bytes]`); no content at all: the structured content as JSON, else empty.
 */
export function describeContent(parts: McpContentPart[], structured?: unknown): string {
  const out = parts.map(describePart);
  if (out.length === 0 && structured !== undefined) return JSON.stringify(structured);
  return out.join('\n\n');
}

function describePart(p: McpContentPart): string {
  switch (p.type) {
    case 'text':
      return p.text ?? '';
    case 'image':
    case 'audio':
      return `[${p.type} ${p.mimeType ?? ''}, ${base64Bytes(p.data)} bytes]`;
    case 'resource':
      if (typeof p.resource?.text === 'string') return p.resource.text;
      return `[resource ${p.resource?.uri ?? ''} ${p.resource?.mimeType ?? ''}, ${base64Bytes(p.resource?.blob)} bytes]`;
    case 'resource_link':
      return `[resource link: ${p.uri ?? ''}${p.name ? ` (${p.name})` : ''}]`;
    default:
      return `[${p.type} content]`;
  }
}

/** Decoded size of a base64 string, without decoding it. */
function base64Bytes(data?: string): number {
  if (!data) return 0;
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - pad;
}
