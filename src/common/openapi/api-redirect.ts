import { ApiFoundResponse } from '@nestjs/swagger';

/** Documents a 302 answer with its `Location` header (no body). */
export function ApiRedirect(description: string) {
  return ApiFoundResponse({
    description,
    headers: { Location: { description: 'where to go next', schema: { type: 'string' } } },
  });
}
