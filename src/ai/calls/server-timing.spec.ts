import { performance } from 'node:perf_hooks';
import type { Request } from 'express';
import { arrivalOf, stampArrival } from '../../common/http/arrival';
import { ServerTiming } from './server-timing';

const durOf = (header: string, name: string) =>
  Number(new RegExp(`${name};dur=([\\d.]+)`).exec(header)?.[1]);

describe('ServerTiming', () => {
  it('counts our time from the arrival stamp, minus the upstream call', async () => {
    const req = {} as Request;
    stampArrival(req, {} as never, () => undefined);
    const arrived = arrivalOf(req);
    expect(arrived).toBeLessThanOrEqual(performance.now());
    // Pretend the request arrived 40 ms ago and the upstream call took about 20 ms.
    const timing = new ServerTiming(arrived - 40);
    await timing.upstream(() => new Promise((r) => setTimeout(r, 20)));
    const header = timing.header();
    expect(durOf(header, 'upstream')).toBeGreaterThanOrEqual(19);
    expect(durOf(header, 'app')).toBeGreaterThanOrEqual(40);
  });

  it('counts upstream time even when the call fails', async () => {
    const timing = new ServerTiming();
    await expect(
      timing.upstream(
        () => new Promise((_r, reject) => setTimeout(() => reject(new Error('x')), 10)),
      ),
    ).rejects.toThrow('x');
    expect(durOf(timing.header(), 'upstream')).toBeGreaterThanOrEqual(9);
  });

  it('falls back to now for an unstamped request', () => {
    const before = performance.now();
    expect(arrivalOf({} as Request)).toBeGreaterThanOrEqual(before);
  });
});
