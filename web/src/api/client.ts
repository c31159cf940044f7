import createClient from 'openapi-fetch';
import i18n from '../i18n';
import type { paths } from './schema';

/**
 * The typed client of the service's API, generated from its OpenAPI document
 * (`npm run web:api` writes schema.d.ts): a path or body the document lacks fails `tsc`.
 * Same origin, so the httpOnly session cookie goes with every call; no token is ever stored
 * in the page. Errors are asked in the page's language.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

api.use({
  onRequest({ request }) {
    request.headers.set('Accept-Language', i18n.language);
    return request;
  },
});

/** An API error answer: its message (`error`) and `code`, with the HTTP status. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The data of an openapi-fetch answer, or throws ApiError with the service's message
 * (`{error, code}`; envelope B adds `success: false`).
 */
export function unwrap<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.response.ok && answer.data !== undefined) return answer.data;
  const body = (answer.error ?? {}) as { error?: unknown; code?: unknown };
  const message = typeof body.error === 'string' ? body.error : answer.response.statusText;
  const code = typeof body.code === 'string' ? body.code : undefined;
  throw new ApiError(message || `HTTP ${answer.response.status}`, answer.response.status, code);
}
