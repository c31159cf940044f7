import { exposedToolName, TOOL_NAME } from './tool-names';

describe('exposedToolName', () => {
  it('prefixes the plugin name', () => {
    expect(exposedToolName('weather', 'get_forecast')).toBe('weather__get_forecast');
  });

  it('replaces characters the providers refuse, keeping names distinct', () => {
    const a = exposedToolName('fs', 'read.file');
    const b = exposedToolName('fs', 'read_file');
    expect(a).toMatch(TOOL_NAME);
    expect(a).toMatch(/^fs__read_file_[0-9a-f]{8}$/);
    expect(b).toBe('fs__read_file');
    expect(exposedToolName('x', '工具')).toMatch(/^x_____[0-9a-f]{8}$/);
  });

  it('truncates to 64 characters with a hash of the real name', () => {
    const plugin = 'p'.repeat(32);
    const a = exposedToolName(plugin, 'a'.repeat(40) + '1');
    const b = exposedToolName(plugin, 'a'.repeat(40) + '2');
    expect(a).toHaveLength(64);
    expect(a).toMatch(TOOL_NAME);
    expect(a).not.toBe(b);
  });
});
