import type { UpstreamTarget } from '../../upstreams/upstream-router.types';
import { UpstreamClients } from './upstream-clients';

const target = (id: string, version: string): UpstreamTarget => ({
  id,
  name: id,
  provider: 'openai',
  baseUrl: `http://${id}.test/v1`,
  upstreamModel: 'm',
  version,
});

describe('UpstreamClients', () => {
  it('builds one client per upstream and builds it again when the upstream’s version changes', () => {
    const built: string[] = [];
    const clients = new UpstreamClients((t) => {
      built.push(`${t.id}@${t.version}`);
      return { url: t.baseUrl };
    });
    const first = clients.of(target('a', '1'));
    expect(clients.of(target('a', '1'))).toBe(first);
    clients.of(target('b', '1'));
    const changed = clients.of(target('a', '2'));
    expect(changed).not.toBe(first);
    expect(built).toEqual(['a@1', 'b@1', 'a@2']);
  });
});
