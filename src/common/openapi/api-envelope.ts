import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/**
 * Documents an envelope-B success: `{success: true, data: <type | type[]>}`; `paginated` adds
 * `nextCursor`; `type` null documents `{success: true}` alone; several types are `anyOf` (the
 * answer depends on the caller, e.g. the admin view of a user).
 */
export function ApiEnvelopeB(
  type: Type<unknown> | Type<unknown>[] | null,
  opts: { status?: number; isArray?: boolean; paginated?: boolean; description?: string } = {},
) {
  const types = type === null ? [] : Array.isArray(type) ? type : [type];
  const refs = types.map((t) => ({ $ref: getSchemaPath(t) }));
  const item = refs.length > 1 ? { anyOf: refs } : refs[0];
  const many = opts.isArray || opts.paginated;
  const properties: Record<string, object> = { success: { type: 'boolean', enum: [true] } };
  if (item) properties.data = many ? { type: 'array', items: item } : item;
  if (opts.paginated) properties.nextCursor = { type: 'string', nullable: true };
  return applyDecorators(
    ...(types.length ? [ApiExtraModels(...types)] : []),
    ApiResponse({
      status: opts.status ?? 200,
      description: opts.description,
      schema: { type: 'object', required: Object.keys(properties), properties },
    }),
  );
}
