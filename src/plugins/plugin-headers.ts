import type { SecretBox } from '../common/crypto/secret-box';

// The sealed value is bound to its row: copied to another plugin's row, it does not open.
const context = (pluginId: string) => `plugin:${pluginId}:headers`;

/** The headers' JSON sealed under ENCRYPTION_KEY for plugin `pluginId` (what the column holds). */
export function sealHeaders(
  box: SecretBox,
  pluginId: string,
  headers: Record<string, string>,
): string {
  return box.seal(JSON.stringify(headers), context(pluginId));
}

/** The headers sealed by `sealHeaders`. Throws when the value was tampered with or moved. */
export function openHeaders(
  box: SecretBox,
  pluginId: string,
  sealed: string,
): Record<string, string> {
  return JSON.parse(box.open(sealed, context(pluginId))) as Record<string, string>;
}
