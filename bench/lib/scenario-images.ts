import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleTreeRss } from './processes';
import type { BenchEnv } from './setup';
import { round } from './stats';
import { uploadFile } from './streams';
import { check, type ScenarioResult } from './types';

const MB = 1024 * 1024;
const IMAGES = 4;

/**
 * 10) Four 10 MB images in one AI request: the service reads each upload from storage
 * as a stream into one buffer and sends it base64 in the provider's JSON. Peak RSS growth of the
 * service's process tree during that request, next to the same request without images; the
 * ratio is growth per byte of image sent.
 */
export async function imagesScenario(env: BenchEnv, imageBytes = 10 * MB): Promise<ScenarioResult> {
  const file = join(tmpdir(), `bench-image-${process.pid}.png`);
  const user = env.aiUsers[0];
  try {
    // A PNG signature and IHDR, then noise: the upload sniffer checks the magic bytes only.
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    writeFileSync(file, Buffer.concat([png, Buffer.from('IHDR'), randomBytes(imageBytes - 16)]));
    const ids: string[] = [];
    for (let i = 0; i < IMAGES; i++) {
      const up = await uploadFile(
        `${env.serviceOrigin}/api/upload`,
        user.token,
        file,
        `shot-${i}.png`,
        'image/png',
      );
      if (up.status !== 200) throw new Error(`image upload answered ${up.status}: ${up.body}`);
      ids.push(JSON.parse(up.body).data.id as string);
    }
    const ask = async (withImages: boolean) => {
      const content = [
        { type: 'text', text: 'What is in these pictures?' },
        ...(withImages ? ids.map((uploadId) => ({ type: 'image', uploadId })) : []),
      ];
      const rss = sampleTreeRss(env.service.pid);
      const started = performance.now();
      const res = await fetch(`${env.serviceOrigin}/api/ai/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          modelId: 'gpt-4o-mini',
          maxTokens: 50,
          messages: [{ role: 'user', content }],
        }),
      });
      await res.text();
      const ms = performance.now() - started;
      const mem = rss.stop();
      return { status: res.status, ms, growth: mem.peak - mem.before, before: mem.before };
    };
    await ask(false); // warm the path
    const text = await ask(false);
    const images = await ask(true);
    const again = await ask(true); // a second request: nothing kept from the first
    const sent = IMAGES * imageBytes;
    const mb = (b: number) => round(b / MB, 1);
    return {
      id: 10,
      name: `${IMAGES} images of ${mb(imageBytes)} MiB in one generate`,
      measured: {
        label: 'with images, peak RSS growth',
        p50: round(images.ms),
        p99: round(images.ms),
        detail: {
          status: images.status,
          growthMB: mb(images.growth),
          secondGrowthMB: mb(again.growth),
        },
      },
      baseline: {
        label: 'text only, peak RSS growth',
        p50: round(text.ms),
        p99: round(text.ms),
        detail: { status: text.status, growthMB: mb(text.growth), rssBeforeMB: mb(text.before) },
      },
      ratio: round(images.growth / sent, 2),
      ratioOf: 'RSS growth / image bytes sent',
      checks: [
        check('status with images', images.status, '', { kind: 'min', value: 200 }),
        check('peak RSS growth', mb(images.growth), 'MB'),
        // Per image byte: the file's buffer (1), its base64 (1.33), the data URL the OpenAI wire
        // builds (1.33), the JSON body (1.33) and its UTF-8 bytes for the socket (1.33), ≈ 6.3
        // before the collector runs; never the upload directory. A second request grows no more.
        check('RSS growth / image bytes', round(images.growth / sent, 2), '×', {
          kind: 'max',
          value: 6,
        }),
        check(
          'second request growth / first',
          round(again.growth / Math.max(images.growth, 1), 2),
          '×',
          {
            kind: 'max',
            value: 1.5,
          },
        ),
      ],
      notes: ['one request each: p50 = p99 = its time'],
    };
  } finally {
    rmSync(file, { force: true });
  }
}
