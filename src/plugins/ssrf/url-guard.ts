import { isIP } from 'node:net';
import { AppError } from '../../common/errors/app-error';
import { PluginsErrorCode } from '../plugins.errors';
import { classifyAddress } from '../../common/http/address-policy';

/** What `checkPluginUrl` found allowed: the parsed URL and whether its host is allow-listed. */
export interface CheckedUrl {
  url: URL;
  /** Listed in PLUGIN_ALLOWED_HOSTS: http allowed, addresses not checked. */
  allowListed: boolean;
}

/** 400 PLUGIN_URL_FORBIDDEN saying why (never the URL's credentials or query). */
export function forbidden(reason: string): AppError {
  return new AppError(
    PluginsErrorCode.PLUGIN_URL_FORBIDDEN,
    `The plugin URL is not allowed: ${reason}`,
  );
}

/**
 * True when `url`'s host is in `allowedHosts` (lower-cased `host` or `host:port` entries; an
 * IPv6 host is written in brackets, `[::1]:8080`). A bare host matches any port.
 */
export function isAllowListed(url: URL, allowedHosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowedHosts.some((entry) => entry === host || entry === `${host}:${port}`);
}

/**
 * The SSRF rules that need no DNS (docs/plugins.md): an absolute `https:` URL (or `http:` for an
 * allow-listed host), without user name or password, whose host, when an IP literal, is a
 * public unicast address. Host names are checked when they are resolved, at each connection
 * (see guardedLookup). Throws PLUGIN_URL_FORBIDDEN (400).
 */
export function checkPluginUrl(raw: string | URL, allowedHosts: readonly string[]): CheckedUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw forbidden('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw forbidden('not an http(s) URL');
  if (url.username || url.password) throw forbidden('credentials in the URL (use headers)');
  const allowListed = isAllowListed(url, allowedHosts);
  if (allowListed) return { url, allowListed };
  if (url.protocol !== 'https:') throw forbidden('https is required');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const cls = classifyAddress(literal);
    if (cls) throw forbidden(`${cls} address`);
  }
  return { url, allowListed };
}
