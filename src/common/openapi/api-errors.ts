import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorDto, ErrorEnvelopeBDto } from './error.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input or unreadable body (`code`: VALIDATION_FAILED, MALFORMED_JSON)',
  401: 'No valid session (`code`: UNAUTHORIZED or INVALID_CREDENTIALS), or a revoked, expired or unknown API key (INVALID_API_KEY)',
  402: 'Insufficient credits (`code`: INSUFFICIENT_CREDITS)',
  403: "Role not allowed (`code`: FORBIDDEN), or an API key without the route's scope (INSUFFICIENT_SCOPE)",
  404: 'Not found, or not yours (`code`: NOT_FOUND / USER_NOT_FOUND)',
  409: 'Conflict (`code`: EMAIL_TAKEN)',
  413: 'Body over 1 MB, or an upload over UPLOAD_MAX_BYTES (`code`: PAYLOAD_TOO_LARGE)',
  415: 'Content not of an allowed type (`code`: UNSUPPORTED_MEDIA_TYPE)',
  429: 'Rate limited (`code`: RATE_LIMITED), see Retry-After',
  500: 'Unexpected or upstream failure (`code`: INTERNAL_ERROR, ...)',
  503: 'The database cannot be reached (`code`: SERVICE_UNAVAILABLE); retry shortly',
};

/** One documented error answer; `description` overrides the generic text for `status`. */
export type ErrorSpec = number | { status: number; description: string };

/**
 * Documents error answers. Every body is ErrorDto `{error, code}`; on envelope-B paths the
 * document builder swaps in ErrorEnvelopeBDto (`success: false` too), and under a registered
 * wire format (the gateway's `/v1`) that format's schema, deciding by path exactly as the error
 * filter does.
 */
export function ApiErrors(...errors: ErrorSpec[]) {
  const byStatus = new Map<number, string | undefined>();
  for (const e of errors) {
    if (typeof e === 'number') {
      if (!byStatus.has(e)) byStatus.set(e, DESCRIPTIONS[e]);
    } else byStatus.set(e.status, e.description);
  }
  return applyDecorators(
    ApiExtraModels(ErrorDto, ErrorEnvelopeBDto),
    ...[...byStatus].map(([status, description]) =>
      ApiResponse({
        status,
        description: description ?? `Error (HTTP ${status})`,
        schema: { $ref: getSchemaPath(ErrorDto) },
      }),
    ),
  );
}
