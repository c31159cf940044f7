import type { SecretBox } from '../common/crypto/secret-box';

// The sealed key is bound to its row: copied to another upstream's row, it does not open.
const context = (upstreamId: string) => `upstream:${upstreamId}:api-key`;

/** The API key sealed under ENCRYPTION_KEY for upstream `upstreamId` (what `apiKeySealed` holds). */
export function sealApiKey(box: SecretBox, upstreamId: string, apiKey: string): string {
  return box.seal(apiKey, context(upstreamId));
}

/** The key sealed by `sealApiKey`. Throws when the value was tampered with or moved. */
export function openApiKey(box: SecretBox, upstreamId: string, sealed: string): string {
  return box.open(sealed, context(upstreamId));
}
