import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { pluginsConfig } from './plugins.config';
import { InjectRepository } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { QueryFailedError, Repository } from 'typeorm';
import { AuditService } from '../audit/audit.service';
import { SecretBox } from '../common/crypto/secret-box';
import { AppError, CommonErrorCode } from '../common/errors/app-error';
import {
  type CreatePluginDto,
  mapPlugin,
  type PluginDto,
  type UpdatePluginDto,
} from './dto/plugin.dto';
import { McpClientService, type McpTool } from './mcp/mcp-client.service';
import { PluginToolsCache } from './mcp/plugin-tools-cache';
import { openHeaders, sealHeaders } from './plugin-headers';
import { Plugin } from './plugin.entity';
import { mcpDefinition, PluginsService } from './plugins.service';
import { checkPluginUrl } from './ssrf/url-guard';

const isUniqueViolation = (e: unknown) =>
  e instanceof QueryFailedError && (e.driverError as { code?: string }).code === '23505';

/**
 * Registration of MCP plugins by administrators: a server is contacted (through
 * the SSRF guard) and its tools listed before it is saved or re-enabled, so a broken one is
 * refused and nothing changes. Headers are sealed before they reach the database.
 */
@Injectable()
export class PluginsAdminService {
  private readonly allowedHosts: string[];

  constructor(
    @InjectRepository(Plugin) private readonly plugins: Repository<Plugin>,
    private readonly box: SecretBox,
    private readonly mcp: McpClientService,
    private readonly cache: PluginToolsCache,
    private readonly catalogue: PluginsService,
    private readonly audit: AuditService,
    @Inject(pluginsConfig.KEY) settings: ConfigType<typeof pluginsConfig>,
  ) {
    this.allowedHosts = settings.allowedHosts;
  }

  /**
   * Registers plugin `dto.name` at `dto.url` (enabled unless `enabled: false`), with the audit
   * event `plugin.register` in the same transaction. Answers it with the tools it listed.
   * Throws CONFLICT (409) for a taken or built-in name, PLUGIN_URL_FORBIDDEN (400) for a refused
   * URL or address, PLUGIN_UNREACHABLE (422) when the server does not list its tools.
   */
  async register(dto: CreatePluginDto): Promise<PluginDto> {
    if (this.catalogue.isBuiltin(dto.name) || (await this.plugins.existsBy({ name: dto.name })))
      throw this.nameTaken(dto.name);
    const headers = dto.headers ?? {};
    checkPluginUrl(dto.url, this.allowedHosts);
    const tools = await this.mcp.listTools({ url: dto.url, headers });
    const id = randomUUID();
    const saved = await this.plugins.manager
      .transaction(async (m) => {
        const row = await m.save(
          m.create(Plugin, {
            id,
            name: dto.name,
            url: dto.url,
            headers: sealHeaders(this.box, id, headers),
            enabled: dto.enabled ?? true,
          }),
        );
        await this.audit.record(m, {
          action: 'plugin.register',
          targetType: 'plugin',
          targetId: id,
          // The URL's origin and path only: a query string may carry a token.
          details: {
            name: dto.name,
            url: safeUrl(dto.url),
            headerNames: Object.keys(headers),
            enabled: row.enabled,
          },
        });
        return row;
      })
      .catch((e: unknown) => {
        throw isUniqueViolation(e) ? this.nameTaken(dto.name) : e;
      });
    this.cache.put(id, saved.updatedAt.getTime(), tools);
    return mapPlugin(saved, Object.keys(headers), this.definitions(saved.name, tools));
  }

  /**
   * Changes the URL, the headers (replaced as a whole) or `enabled` of plugin `id`. When the
   * result is enabled and the URL or headers changed, or it was disabled, the server is
   * contacted first (the errors of `register`); otherwise nothing is fetched. Throws NOT_FOUND.
   */
  async update(id: string, dto: UpdatePluginDto): Promise<PluginDto> {
    const row = await this.load(id);
    const current = openHeaders(this.box, id, row.headers);
    const url = dto.url ?? row.url;
    const headers = dto.headers ?? current;
    const enabled = dto.enabled ?? row.enabled;
    const changed = url !== row.url || dto.headers !== undefined;
    let tools: McpTool[] | undefined;
    if (dto.url !== undefined) checkPluginUrl(url, this.allowedHosts);
    if (enabled && (changed || !row.enabled)) tools = await this.mcp.listTools({ url, headers });
    row.url = url;
    row.headers = sealHeaders(this.box, id, headers);
    row.enabled = enabled;
    const saved = await this.plugins.save(row);
    if (tools) this.cache.put(id, saved.updatedAt.getTime(), tools);
    else this.cache.drop(id);
    return mapPlugin(saved, Object.keys(headers), tools && this.definitions(saved.name, tools));
  }

  /** Deletes plugin `id`: its tools are offered no more. Throws NOT_FOUND. */
  async remove(id: string): Promise<void> {
    const { affected } = await this.plugins.delete({ id });
    if (!affected) throw new AppError(CommonErrorCode.NOT_FOUND, 'Plugin not found');
    this.cache.drop(id);
  }

  private async load(id: string): Promise<Plugin> {
    const row = await this.plugins.findOne({
      where: { id },
      select: {
        id: true,
        name: true,
        url: true,
        headers: true,
        enabled: true,
        createdAt: true,
        updatedAt: true,
      },
    });
    if (!row) throw new AppError(CommonErrorCode.NOT_FOUND, 'Plugin not found');
    return row;
  }

  private definitions(name: string, tools: McpTool[]) {
    return tools.map((t) => mcpDefinition(name, t));
  }

  private nameTaken(name: string): AppError {
    return new AppError(CommonErrorCode.CONFLICT, `A plugin named ${name} already exists`);
  }
}

/** `url` without query, fragment or credentials (for the audit log). */
function safeUrl(raw: string): string {
  const u = new URL(raw);
  return `${u.origin}${u.pathname}`;
}
