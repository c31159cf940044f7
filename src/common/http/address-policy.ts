import { BlockList, isIP } from 'node:net';

/**
 * Why an address is refused as an outbound target (SSRF guard): a plugin server (docs/plugins.md)
 * or an upstream base URL (docs/upstreams.md). Pure: no I/O.
 */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'translated';

// IANA special-purpose registries (RFC 6890 and successors). Node's BlockList also matches an
// IPv4-mapped IPv6 address (::ffff:a.b.c.d, any notation) against the IPv4 rules, so
// ::ffff:10.0.0.1 is private while ::ffff:8.8.8.8 stays public.
const RANGES: [AddressClass, string, number, 'ipv4' | 'ipv6'][] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['cgnat', '100.64.0.0', 10, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '192.88.99.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'], // includes 255.255.255.255
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  // Deprecated IPv4-compatible addresses (::a.b.c.d), which BlockList does not map.
  ['reserved', '::', 96, 'ipv6'],
  // Addresses that a gateway translates to IPv4 (NAT64, 6to4, Teredo) could reach any IPv4
  // network behind it, so none is allowed.
  ['translated', '64:ff9b::', 96, 'ipv6'],
  ['translated', '64:ff9b:1::', 48, 'ipv6'],
  ['translated', '2001::', 32, 'ipv6'],
  ['translated', '2002::', 16, 'ipv6'],
  ['reserved', '100::', 64, 'ipv6'],
  ['reserved', '2001:db8::', 32, 'ipv6'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['private', 'fec0::', 10, 'ipv6'], // deprecated site-local
  ['multicast', 'ff00::', 8, 'ipv6'],
];

// Most specific first: ::1 and :: are checked before the ::/96 they sit in.
const LISTS: [AddressClass, BlockList][] = (() => {
  const byClass = new Map<string, BlockList>();
  const order: [AddressClass, BlockList][] = [];
  for (const [cls, net, prefix, family] of [...RANGES].sort((a, b) => b[2] - a[2])) {
    const key = `${cls}/${prefix}`;
    let list = byClass.get(key);
    if (!list) {
      list = new BlockList();
      byClass.set(key, list);
      order.push([cls, list]);
    }
    list.addSubnet(net, prefix, family);
  }
  return order;
})();

/**
 * The class of a refused IP address, or `null` when it is a public unicast address a plugin
 * server may have. `address` is an IPv4 or IPv6 literal (no brackets, no zone); anything else
 * is `reserved`, so a value that is not an address is never taken for a public one.
 */
export function classifyAddress(address: string): AddressClass | null {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [cls, list] of LISTS) if (list.check(address, type)) return cls;
  return null;
}
