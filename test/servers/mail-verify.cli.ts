import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * `npm run -s mail:verify [-- <email>]`: development's one command that verifies an address.
 * Without SMTP_URL the service writes each mail under MAIL_DIR (default `.data/mail`) as `.eml`
 * and `.txt`; this takes the newest `.txt` verification mail (to `<email>` when given), waiting
 * for it up to 60 looks one second apart (the mail goes out through the job queue, a moment after
 * sign-up), POSTs its link's token to `/api/auth/verify-email` on the link's own origin, and
 * prints the answer (`{"user":{…,"emailVerified":true,…}}`). Exits 1 when no mail came or the
 * service refused the token (400 INVALID_TOKEN: used, replaced by a newer link, or expired).
 */
const LOOKS = 60;
const VERIFY_LINK = /^Link: (\S+\/auth\/verify-email\?token=\S+)$/m;

/** The link of the newest verification mail in `dir` (to `email`, if given), or undefined. */
async function newestLink(dir: string, email?: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names
    .filter((n) => n.endsWith('.txt'))
    .sort()
    .reverse()) {
    const text = await readFile(join(dir, name), 'utf8');
    const to = /^To: (.*)$/m.exec(text)?.[1]?.trim().toLowerCase();
    if (email && to !== email.toLowerCase()) continue;
    const link = VERIFY_LINK.exec(text)?.[1];
    if (link) return link;
  }
  return undefined;
}

async function main(): Promise<void> {
  const dir = resolve(process.env.MAIL_DIR || '.data/mail');
  const email = process.argv[2];
  let link: string | undefined;
  for (let look = 0; look < LOOKS && !link; look++) {
    if (look) await new Promise((r) => setTimeout(r, 1000));
    link = await newestLink(dir, email);
  }
  if (!link) {
    console.error(`No verification mail${email ? ` to ${email}` : ''} in ${dir}.`);
    process.exit(1);
  }
  const url = new URL(link);
  const res = await fetch(`${url.origin}/api/auth/verify-email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: url.searchParams.get('token') }),
  });
  console.log(await res.text());
  if (!res.ok) process.exit(1);
}

void main();
