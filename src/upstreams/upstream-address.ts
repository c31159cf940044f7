import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../common/errors/app-error';
import { UpstreamsErrorCode } from './upstreams.errors';
import { type AddressClass, classifyAddress } from '../common/http/address-policy';

/**
 * What an upstream's `baseUrl` may reach besides public addresses (UPSTREAM_ALLOW_PRIVATE): the
 * special-purpose address classes of the plugins' SSRF policy, plus `metadata`, the cloud
 * metadata endpoints, which are refused whatever class their address is in unless listed.
 */
export type UpstreamAddressClass = AddressClass | 'metadata';

/** Every value UPSTREAM_ALLOW_PRIVATE may list (`none`, alone, allows public addresses only). */
export const UPSTREAM_ADDRESS_CLASSES: readonly UpstreamAddressClass[] = [
  'loopback',
  'private',
  'unique-local',
  'cgnat',
  'link-local',
  'metadata',
  'unspecified',
  'multicast',
  'reserved',
  'translated',
];

/**
 * UPSTREAM_ALLOW_PRIVATE's default: model servers on this host and on private networks (RFC 1918,
 * IPv6 unique-local). Link-local, metadata and the rest are refused until listed.
 */
export const DEFAULT_UPSTREAM_ALLOW: readonly UpstreamAddressClass[] = [
  'loopback',
  'private',
  'unique-local',
];

/** Host names of cloud metadata services (GCP, AWS, OpenStack and others), lower-case. */
const METADATA_HOSTS = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

// Metadata addresses: AWS, GCP, Azure and OpenStack IMDS (169.254.169.254), AWS ECS task
// metadata (169.254.170.2) and IMDS over IPv6 (fd00:ec2::254), Alibaba Cloud (100.100.100.200),
// Azure's wire server (168.63.129.16). BlockList also matches their IPv4-mapped IPv6 forms.
const METADATA_ADDRESSES = (() => {
  const list = new BlockList();
  for (const a of ['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16'])
    list.addAddress(a, 'ipv4');
  list.addAddress('fd00:ec2::254', 'ipv6');
  return list;
})();

/** The class of `address` (an IP literal) for upstreams; null for a public address. */
function classOf(address: string): UpstreamAddressClass | null {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (METADATA_ADDRESSES.check(address, family)) return 'metadata';
  return classifyAddress(address);
}

/** 400 UPSTREAM_URL_FORBIDDEN naming the class (never the URL, which may carry a token). */
const forbidden = (what: string, cls: UpstreamAddressClass) =>
  new AppError(
    UpstreamsErrorCode.UPSTREAM_URL_FORBIDDEN,
    `baseUrl ${what} a ${cls} address, which UPSTREAM_ALLOW_PRIVATE does not allow`,
    { param: 'baseUrl' },
  );

/**
 * Checks that `baseUrl` (an http(s) URL, already validated) reaches only public addresses or
 * classes in `allowed`: a metadata host name is `metadata`; an IP literal is classified as it
 * is; any other name is resolved (every address it has now must pass; a name without an
 * address passes, since nothing can be reached through it). Names are checked when an upstream
 * is saved and tested, not at each call. Throws UPSTREAM_URL_FORBIDDEN (400, the message names
 * the class).
 */
export async function checkUpstreamUrl(
  baseUrl: string,
  allowed: readonly UpstreamAddressClass[],
): Promise<void> {
  const host = new URL(baseUrl).hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  const refuse = (what: string, cls: UpstreamAddressClass | null) => {
    if (cls && !allowed.includes(cls)) throw forbidden(what, cls);
  };
  refuse('names', METADATA_HOSTS.has(host) ? 'metadata' : null);
  if (isIP(host)) return refuse('is', classOf(host));
  const addresses = await lookup(host, { all: true, verbatim: true }).catch(() => []);
  for (const { address } of addresses) refuse('resolves to', classOf(address));
}
