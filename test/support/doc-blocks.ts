import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** One shell command of a documentation block and the answers the block shows for it. */
export interface DocStep {
  /** The command as written, continuation lines joined by their `\` newlines. */
  command: string;
  /** The text of each `# → ` line after the command (`…` stands for anything). */
  shown: string[];
}

/**
 * The fenced code blocks of language `lang` in the section of `markdown` under the heading whose
 * text starts with `heading` (any level; the section ends at the next heading of the same or a
 * higher level), in order.
 */
export function sectionBlocks(markdown: string, heading: string, lang = 'bash'): string[] {
  // Heading levels by line, 0 for other lines and for every line inside a fenced block.
  let fenced = false;
  const lines = markdown.split('\n');
  const levels = lines.map((l) => {
    if (l.startsWith('```')) fenced = !fenced;
    return fenced ? 0 : (/^(#{1,6}) /.exec(l)?.[1].length ?? 0);
  });
  const at = lines.findIndex((l, i) => levels[i] && l.replace(/^#+ /, '').startsWith(heading));
  if (at === -1) throw new Error(`no heading "${heading}"`);
  const end = levels.findIndex((level, i) => i > at && level > 0 && level <= levels[at]);
  const section = lines.slice(at + 1, end === -1 ? undefined : end).join('\n');
  const fence = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm');
  return [...section.matchAll(fence)].map((m) => m[1]);
}

/**
 * The commands of a shell block: a command is a line that is not a comment, with the lines its
 * trailing `\` continues; the `# → ` lines after it are its shown answers. Other comments and
 * blank lines are skipped.
 */
export function docSteps(block: string): DocStep[] {
  const steps: { lines: string[]; shown: string[] }[] = [];
  let continued = false;
  for (const line of block.split('\n')) {
    const trimmed = line.trim();
    if (continued) steps.at(-1)!.lines.push(line);
    else if (trimmed.startsWith('# → ')) steps.at(-1)?.shown.push(trimmed.slice('# → '.length));
    else if (trimmed && !trimmed.startsWith('#')) steps.push({ lines: [line], shown: [] });
    else continue;
    continued = line.endsWith('\\');
  }
  return steps.map((s) => ({ command: s.lines.join('\n'), shown: s.shown }));
}

/**
 * True when `output` is what `shown` shows: equal once runs of white space are made one space,
 * where each `…` of `shown` stands for any text (none included).
 */
export function matchesShown(output: string, shown: string): boolean {
  const squeeze = (s: string) => s.replace(/\s+/g, ' ').trim();
  const pattern = squeeze(shown)
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(squeeze(output));
}

/**
 * Runs `steps` in order in one bash (so variables carry over, as in one terminal) from the
 * repository's root with `env` added, and resolves with each step's standard output. Each
 * command's text goes through `rewrite` first (a test's ports). Rejects, with the output so far,
 * when bash ends with another code than 0 (`set -e`: a failed command stops the block).
 */
export function runSteps(
  steps: DocStep[],
  env: Record<string, string>,
  rewrite: (command: string) => string = (c) => c,
): Promise<string[]> {
  const marker = (i: number) => `<<<step ${i} done>>>`;
  const script = [
    'set -eo pipefail',
    ...steps.flatMap((s, i) => [rewrite(s.command), `printf '\\n%s\\n' '${marker(i)}'`]),
  ].join('\n');
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => {
      if (code !== 0) return fail(new Error(`bash exited ${code}\n${out}\n${err}`));
      const outputs: string[] = [];
      let rest = out;
      steps.forEach((_, i) => {
        const at = rest.indexOf(`\n${marker(i)}\n`);
        outputs.push(rest.slice(0, at));
        rest = rest.slice(at + marker(i).length + 2);
      });
      done(outputs);
    });
  });
}
