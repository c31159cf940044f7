import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches } from 'class-validator';

/**
 * `plugins`: names of plugins whose tools the model may call (`GET /api/plugins`), at most 10;
 * checked when a request uses them (400 UNKNOWN_PLUGIN). Used by requests and chat settings.
 */
export function PluginNames(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: [String],
      maxItems: 10,
      example: ['calculator'],
      description:
        "plugins whose tools the model may call (`GET /api/plugins`); the model needs the `tools` capability. A request's list (even `[]`) replaces the chat's",
    }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(10),
    IsString({ each: true }),
    Matches(/^[a-z0-9_-]{1,32}$/, { each: true }),
  );
}
