import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { classifyAddress } from '../../common/http/address-policy';
import { forbidden } from './url-guard';

/**
 * A `lookup` for node's sockets that resolves the name itself and refuses it when any address
 * is not public (docs/plugins.md, SSRF). The socket then connects to exactly the addresses that
 * were checked, so a DNS answer that changes between a check and the connection (rebinding)
 * cannot reach an internal address. The error is PLUGIN_URL_FORBIDDEN.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
    if (err) return callback(err, '', 0);
    const refused = addresses.find((a) => classifyAddress(a.address) !== null);
    if (refused || addresses.length === 0) {
      const reason = refused
        ? `${hostname} resolves to a ${classifyAddress(refused.address)} address`
        : `${hostname} has no address`;
      return callback(forbidden(reason), '', 0);
    }
    if (options.all) return (callback as unknown as AllCallback)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

type AllCallback = (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
