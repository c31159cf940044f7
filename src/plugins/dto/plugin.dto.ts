import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { PluginListing } from '../plugins.service';
import { Plugin, PLUGIN_NAME } from '../plugin.entity';
import { IsPluginHeaders } from './plugin-headers.validator';
import type { ToolDefinition } from '../../models/call.types';

const HEADERS_DOC = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description:
    'extra HTTP headers sent to the server (e.g. Authorization); stored encrypted, never answered',
  example: { Authorization: 'Bearer mcp-secret' },
} as const;

/** POST /api/plugins. */
export class CreatePluginDto {
  @ApiProperty({ pattern: PLUGIN_NAME.source, example: 'weather' })
  @IsString()
  @Matches(PLUGIN_NAME, { message: 'name must be 1-32 characters of a-z, 0-9, _ and -' })
  name: string;

  @ApiProperty({ maxLength: 2048, example: 'https://mcp.example.com/mcp' })
  @IsString()
  @MaxLength(2048)
  url: string;

  @ApiPropertyOptional(HEADERS_DOC)
  @IsOptional()
  @IsPluginHeaders()
  headers?: Record<string, string>;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** PATCH /api/plugins/{id}: any of the fields; `headers` replaces all of them (`{}`: none). */
export class UpdatePluginDto {
  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional(HEADERS_DOC)
  @IsOptional()
  @IsPluginHeaders()
  headers?: Record<string, string>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

/** A tool as the model sees it. */
export class ToolDefinitionDto {
  @ApiProperty({ example: 'weather__get_forecast', pattern: '^[a-zA-Z0-9_-]{1,64}$' })
  name: string;
  @ApiProperty() description: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'JSON Schema of the arguments object',
  })
  parameters: Record<string, unknown>;
}

/** A registered MCP plugin (admin answers): header names only, never their values. */
export class PluginDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'weather' }) name: string;
  @ApiProperty({ example: 'https://mcp.example.com/mcp' }) url: string;
  @ApiProperty({ type: [String], example: ['Authorization'] }) headerNames: string[];
  @ApiProperty() enabled: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiPropertyOptional({
    type: [ToolDefinitionDto],
    description: 'the tools the server listed, when it was contacted for this answer',
  })
  tools?: ToolDefinitionDto[];
}

/** One plugin of GET /api/plugins. */
export class PluginListingDto {
  @ApiProperty({ example: 'calculator' }) name: string;
  @ApiProperty({ enum: ['builtin', 'mcp'] }) kind: 'builtin' | 'mcp';
  @ApiPropertyOptional({ format: 'uuid', description: 'MCP plugins only' }) id?: string;
  @ApiProperty({ description: 'false: the MCP server could not be reached just now' })
  available: boolean;
  @ApiProperty({ type: [ToolDefinitionDto] }) tools: ToolDefinitionDto[];
}

export class PluginListDto {
  @ApiProperty({ type: [PluginListingDto] }) plugins: PluginListingDto[];
}

export class PluginDeletedDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ enum: [true] }) deleted: true;
}

/** The admin answer for `p`; `headerNames` come from the decrypted headers, never values. */
export function mapPlugin(p: Plugin, headerNames: string[], tools?: ToolDefinition[]): PluginDto {
  return {
    id: p.id,
    name: p.name,
    url: p.url,
    headerNames,
    enabled: p.enabled,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    ...(tools ? { tools } : {}),
  };
}

/** The public listing as answered. */
export function mapListing(l: PluginListing): PluginListingDto {
  return { ...l };
}
