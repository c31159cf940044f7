import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { BuiltinTool, ToolOutput } from '../plugins/builtin-tool';
import { intArg, onlyArgs, stringArg } from '../plugins/builtins/arguments';
import { PluginsService } from '../plugins/plugins.service';
import { MAX_QUERY_LENGTH } from './dto/search.dto';
import { SearchService } from './search.service';

/** Most hits one call returns. */
export const MAX_TOOL_HITS = 10;

/**
 * The `search_my_chats` built-in: keyword search (free: no embedding, no credits)
 * over the chats the calling user can read, exactly as GET /api/search checks access. Answers
 * JSON `[{chatId, title, snippet}]`, best first. It reads the caller's private data: the
 * plugins module runs it only where no one else reads its output (see ToolBoxes).
 */
export function searchMyChatsTool(search: SearchService): BuiltinTool {
  return {
    name: 'search_my_chats',
    // Chat text the caller may read, and others may not: the caller's request only, into a
    // chat only they read, and with a key only when it may read chats itself.
    reads: 'caller-private-data',
    scope: 'chats:read',
    description:
      "Searches the user's own chats (and their teams' shared chats) by keywords; returns each hit's chat title and a snippet.",
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', maxLength: MAX_QUERY_LENGTH, description: 'Keywords to find' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_HITS, description: 'default 5' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    async run(args, { user }): Promise<ToolOutput> {
      onlyArgs(args, ['query', 'limit']);
      const q = stringArg(args, 'query', { maxLength: MAX_QUERY_LENGTH });
      const limit = intArg(args, 'limit', { min: 1, max: MAX_TOOL_HITS }) ?? 5;
      const page = await search.search(user.id, { q, mode: 'keyword', limit }, user.apiKey?.id);
      const hits = page.data.map((r) => ({
        chatId: r.chat.id,
        title: r.chat.title,
        snippet: r.snippet,
      }));
      return {
        content: JSON.stringify(hits),
        summary: `${hits.length} result${hits.length === 1 ? '' : 's'} for "${q}"`,
      };
    },
  };
}

/** Registers `search_my_chats` with the plugins module when the application starts. */
@Injectable()
export class SearchToolRegistrar implements OnModuleInit {
  constructor(
    private readonly plugins: PluginsService,
    private readonly search: SearchService,
  ) {}

  onModuleInit(): void {
    this.plugins.registerBuiltin(searchMyChatsTool(this.search));
  }
}
