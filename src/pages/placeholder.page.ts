import type { Locale } from './locale';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

/** Content-Security-Policy of the placeholder: no scripts, no requests, inline style only. */
export const PLACEHOLDER_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/**
 * The minimal HTML answered for an allowed page when no FRONTEND_DIR is configured: it only
 * names the page (`path`, the decoded request path, escaped) so a reverse-proxy setup can be
 * checked before a frontend exists.
 */
export function placeholderPage(locale: Locale, path: string): string {
  const page = escapeHtml(path);
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page}</title>
<style>body{font-family:system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0}main{max-width:32rem;padding:2rem;text-align:center}</style>
</head>
<body>
<main>
<h1>${page}</h1>
<p>This page is rendered by the frontend. Set FRONTEND_DIR to serve it from this service.</p>
</main>
</body>
</html>
`;
}
