import { HttpStatus } from '@nestjs/common';
import type { ErrorTable } from '../common/errors/error-table';

/**
 * The codes the plugins module (MCP servers and built-in tools) raises,
 * as `code` in error bodies.
 */
export enum PluginsErrorCode {
  /** A name that is neither a built-in nor an enabled registered plugin. */
  UNKNOWN_PLUGIN = 'UNKNOWN_PLUGIN',
  /** The MCP server did not connect or list its tools (registration, or a request's tools). */
  PLUGIN_UNREACHABLE = 'PLUGIN_UNREACHABLE',
  /** The URL is not https, or its host is (or resolves to) a refused address (SSRF guard). */
  PLUGIN_URL_FORBIDDEN = 'PLUGIN_URL_FORBIDDEN',
  /** A tool that reads the caller's private data, asked for where others would read its output. */
  PLUGIN_NOT_ALLOWED = 'PLUGIN_NOT_ALLOWED',
}

/** Their HTTP statuses (src/app-errors.ts assembles every module's table). */
export const PLUGINS_ERRORS: ErrorTable<PluginsErrorCode> = {
  UNKNOWN_PLUGIN: { status: HttpStatus.BAD_REQUEST },
  // The request was well-formed; the server it names does not work.
  PLUGIN_UNREACHABLE: { status: HttpStatus.UNPROCESSABLE_ENTITY },
  PLUGIN_URL_FORBIDDEN: { status: HttpStatus.BAD_REQUEST },
  // A tool that reads the caller's private data, asked for where others would read its output.
  PLUGIN_NOT_ALLOWED: { status: HttpStatus.FORBIDDEN },
};
