import { AppError } from '../../common/errors/app-error';
import { PluginsErrorCode } from '../plugins.errors';
import { classifyAddress } from '../../common/http/address-policy';
import { guardedLookup } from './guarded-lookup';
import { checkPluginUrl } from './url-guard';

describe('SSRF guard', () => {
  it.each([
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['2606:4700:4700::1111', null],
    ['::ffff:8.8.8.8', null],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['fc00::abcd', 'unique-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'], // ::ffff:169.254.169.254 in hex
    ['0:0:0:0:0:ffff:0a00:0001', 'private'],
    ['::a00:1', 'reserved'], // IPv4-compatible
    ['64:ff9b::a00:1', 'translated'], // NAT64
    ['2002:a00:1::1', 'translated'], // 6to4
    ['not-an-address', 'reserved'],
  ])('classifies %s as %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
  });

  const refused = (url: string, allowed: string[] = []) => {
    try {
      checkPluginUrl(url, allowed);
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe(PluginsErrorCode.PLUGIN_URL_FORBIDDEN);
      return (e as AppError).message.replace('The plugin URL is not allowed: ', '');
    }
    throw new Error(`${url} was allowed`);
  };

  it('requires https, and refuses credentials and non-http schemes', () => {
    expect(refused('http://example.com/mcp')).toBe('https is required');
    expect(refused('ftp://example.com/')).toBe('not an http(s) URL');
    expect(refused('https://user:pw@example.com/')).toMatch(/credentials/);
    expect(refused('not a url')).toBe('not an absolute URL');
    expect(checkPluginUrl('https://example.com/mcp', []).allowListed).toBe(false);
  });

  it('refuses IP literals of internal networks', () => {
    expect(refused('https://10.0.0.1/')).toBe('private address');
    expect(refused('https://169.254.169.254/latest/meta-data')).toBe('link-local address');
    expect(refused('https://[::1]:8443/')).toBe('loopback address');
    expect(refused('https://[::ffff:7f00:1]/')).toBe('loopback address');
    expect(refused('https://0x7f000001/')).toBe('loopback address'); // WHATWG parses it as 127.0.0.1
    expect(refused('http://127.0.0.1:3000/')).toBe('https is required');
  });

  it('exempts allow-listed hosts (host, or host:port), which may use http', () => {
    expect(checkPluginUrl('http://127.0.0.1:3000/mcp', ['127.0.0.1']).allowListed).toBe(true);
    expect(checkPluginUrl('http://127.0.0.1:3000/mcp', ['127.0.0.1:3000']).allowListed).toBe(true);
    expect(refused('http://127.0.0.1:3001/mcp', ['127.0.0.1:3000'])).toBe('https is required');
    expect(checkPluginUrl('https://[::1]/', ['[::1]:443']).allowListed).toBe(true);
  });

  it('refuses a host name that resolves to an internal address, when connecting', async () => {
    const err = await new Promise<Error | null>((resolve) =>
      guardedLookup('localhost', { all: true }, (e) => resolve(e)),
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(PluginsErrorCode.PLUGIN_URL_FORBIDDEN);
    expect(err!.message).toMatch(/localhost resolves to a loopback address/);
  });
});
