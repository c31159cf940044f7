import { createWriteStream, existsSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleRss } from './processes';
import type { BenchEnv } from './setup';
import { UPLOAD_DIR } from './setup';
import { round } from './stats';
import { uploadFile } from './streams';
import { check, type ScenarioResult } from './types';

const MB = 1024 * 1024;

/** 6) Upload of a large file, streamed as multipart: peak RSS growth of the service. */
export async function uploadScenario(
  env: BenchEnv,
  cfg: { uploadBytes: number },
): Promise<ScenarioResult> {
  const file = join(tmpdir(), `bench-upload-${process.pid}.txt`);
  try {
    await writeTextFile(file, cfg.uploadBytes);
    const token = env.aiUsers[0].token;
    const rss = sampleRss(env.service.pid);
    const up = await uploadFile(
      `${env.serviceOrigin}/api/upload`,
      token,
      file,
      'bench.txt',
      'text/plain',
    );
    const mem = rss.stop();
    const filename: string | undefined =
      up.status === 200 ? JSON.parse(up.body).data?.filename : undefined;
    const stored =
      filename && existsSync(join(UPLOAD_DIR, filename))
        ? statSync(join(UPLOAD_DIR, filename)).size
        : 0;
    if (filename) {
      await fetch(`${env.serviceOrigin}/api/upload/${encodeURIComponent(filename)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
    }
    const mb = (b: number) => round(b / MB, 1);
    return {
      id: 6,
      name: `upload of ${mb(cfg.uploadBytes)} MiB (multipart, streamed)`,
      measured: {
        label: 'service, peak RSS',
        rps: round(1000 / up.ms, 3),
        p50: round(up.ms),
        p99: round(up.ms),
        detail: {
          status: up.status,
          peakRssMB: mb(mem.peak),
          peakSource: mem.peakSource,
          answer: up.body.slice(0, 300),
        },
      },
      baseline: { label: 'service, RSS before', detail: { rssMB: mb(mem.before) } },
      ratio: round((mem.peak - mem.before) / cfg.uploadBytes, 4),
      ratioOf: 'RSS growth / file size',
      checks: [
        check('status', up.status, '', { kind: 'min', value: 200 }),
        check('stored bytes = sent bytes', stored === cfg.uploadBytes ? 1 : 0, 'yes=1', {
          kind: 'min',
          value: 1,
        }),
        check('peak RSS growth', mb(mem.peak - mem.before), 'MB'),
        check('upload speed', round(cfg.uploadBytes / MB / (up.ms / 1000), 1), 'MiB/s'),
      ],
      notes: ['one request: req/s = 1 / time, p50 = p99 = its time'],
    };
  } finally {
    rmSync(file, { force: true });
  }
}

/** A text file of `bytes` bytes (ASCII lines, no NUL), written in 1 MiB blocks. */
async function writeTextFile(path: string, bytes: number): Promise<void> {
  const line = 'The quick brown fox jumps over the lazy dog while the bench measures memory.\n';
  const block = Buffer.from(line.repeat(Math.ceil(MB / line.length)).slice(0, MB));
  const out = createWriteStream(path);
  for (let left = bytes; left > 0; left -= block.length) {
    const part = left >= block.length ? block : block.subarray(0, left);
    if (!out.write(part)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
}
