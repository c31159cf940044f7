import { Module } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox } from '../common/crypto/secret-box';
import { ConfigSliceModule } from '../config/config-slice.module';
import { sharedConfig } from '../config/shared.config';
import { CalculatorWorkers } from './builtins/calculator-workers';
import { McpClientService } from './mcp/mcp-client.service';
import { PluginToolsCache } from './mcp/plugin-tools-cache';
import { Plugin } from './plugin.entity';
import { PluginsAdminService } from './plugins-admin.service';
import { PluginsController } from './plugins.controller';
import { PluginsService } from './plugins.service';
import { ToolBoxes } from './tool.types';
import { pluginsConfig } from './plugins.config';

/**
 * Plugins (docs/plugins.md): built-in tools and MCP servers registered by admins.
 * Exports PluginsService (`toolBox` for the AI module, `registerBuiltin` for modules that add
 * built-ins). Imports no feature module, so the AI and search modules can both import it.
 */
@Module({
  imports: [ConfigSliceModule.forFeature(pluginsConfig), TypeOrmModule.forFeature([Plugin])],
  controllers: [PluginsController],
  providers: [
    PluginsService,
    // The port the AI module depends on (src/plugins/tool.types.ts).
    { provide: ToolBoxes, useExisting: PluginsService },
    PluginsAdminService,
    McpClientService,
    PluginToolsCache,
    CalculatorWorkers,
    {
      // The same sealing as the two-factor secrets (ENCRYPTION_KEY through SecretBox).
      provide: SecretBox,
      inject: [sharedConfig.KEY],
      useFactory: (shared: ConfigType<typeof sharedConfig>) => new SecretBox(shared.encryptionKey),
    },
  ],
  exports: [PluginsService, ToolBoxes],
})
export class PluginsModule {}
