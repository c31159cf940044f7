import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/**
 * Documents an envelope-B success: `{success: true, data: <type | type[]>}`; `paginated` adds
 * `nextCursor`; `type` null documents `{success: true}` alone.
 */
export function ApiEnvelopeB(
  type: Type<unknown> | null,
  opts: { status?: number; isArray?: boolean; paginated?: boolean; description?: string } = {},
) {
  const item = type ? { $ref: getSchemaPath(type) } : undefined;
  const many = opts.isArray || opts.paginated;
  const properties: Record<string, object> = { success: { type: 'boolean', enum: [true] } };
  if (item) properties.data = many ? { type: 'array', items: item } : item;
  if (opts.paginated) properties.nextCursor = { type: 'string', nullable: true };
  return applyDecorators(
    ...(type ? [ApiExtraModels(type)] : []),
    ApiResponse({
      status: opts.status ?? 200,
      description: opts.description,
      schema: { type: 'object', required: Object.keys(properties), properties },
    }),
  );
}
