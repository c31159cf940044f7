import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (`code`: VALIDATION_FAILED, MALFORMED_JSON, ...)',
  401: 'No valid session (`code`: UNAUTHORIZED or INVALID_CREDENTIALS)',
  402: 'Insufficient credits (`code`: INSUFFICIENT_CREDITS)',
  403: 'Role not allowed (`code`: FORBIDDEN)',
  404: 'Not found, or not yours (`code`: NOT_FOUND / USER_NOT_FOUND)',
  409: 'Conflict (`code`: EMAIL_TAKEN)',
  413: 'JSON body over 1 MB, or an upload over UPLOAD_MAX_BYTES (`code`: PAYLOAD_TOO_LARGE)',
  415: 'Content not of an allowed type (`code`: UNSUPPORTED_MEDIA_TYPE)',
  429: 'Rate limited (`code`: RATE_LIMITED), see Retry-After',
  500: 'Unexpected or upstream failure',
};

/** Documents error answers: every body has `error` (message) and `code`. */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status],
        schema: {
          type: 'object',
          properties: { error: { type: 'string' }, code: { type: 'string' } },
          required: ['error', 'code'],
        },
      }),
    ),
  );
}
