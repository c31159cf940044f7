import type { Clock } from '../../common/clock/clock';
import type { McpTool } from './mcp-client.service';
import { PluginToolsCache } from './plugin-tools-cache';

describe('PluginToolsCache', () => {
  let now = 0;
  const clock = { now: () => new Date(now) } as Clock;
  const tools: McpTool[] = [{ name: 'echo', description: '', inputSchema: { type: 'object' } }];

  beforeEach(() => (now = 1_000_000));

  it('reuses a listing for 60 s, and not for another version', async () => {
    const cache = new PluginToolsCache(clock);
    const load = jest.fn(async () => tools);
    await cache.get('p', 1, load);
    now += 59_999;
    await cache.get('p', 1, load);
    expect(load).toHaveBeenCalledTimes(1);
    await cache.get('p', 2, load); // URL or headers changed
    expect(load).toHaveBeenCalledTimes(2);
    now += 60_000;
    await cache.get('p', 2, load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('shares one listing between concurrent readers and keeps a failure for 10 s', async () => {
    const cache = new PluginToolsCache(clock);
    const load = jest.fn(async (): Promise<McpTool[]> => {
      throw new Error('down');
    });
    await Promise.all([
      expect(cache.get('p', 1, load)).rejects.toThrow('down'),
      expect(cache.get('p', 1, load)).rejects.toThrow('down'),
    ]);
    expect(load).toHaveBeenCalledTimes(1);
    now += 10_001;
    await expect(cache.get('p', 1, load)).rejects.toThrow('down');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('forgets a dropped plugin', async () => {
    const cache = new PluginToolsCache(clock);
    cache.put('p', 1, tools);
    const load = jest.fn(async () => tools);
    await cache.get('p', 1, load);
    expect(load).not.toHaveBeenCalled();
    cache.drop('p');
    await cache.get('p', 1, load);
    expect(load).toHaveBeenCalledTimes(1);
  });
});
