import { Module } from '@nestjs/common';
import { AiModule } from '../ai';
import { ChatsModule } from '../chats/chats.module';
import { CreditsModule } from '../credits/credits.module';
import { JobsModule } from '../jobs/jobs.module';
import { PluginsModule } from '../plugins/plugins.module';
import { MessageVectorsRepository } from './message-vectors.repository';
import { SearchIndexer } from './search-indexer.service';
import { SearchToolRegistrar } from './search-my-chats.tool';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { searchConfig } from './search.config';

/**
 * Chat search (docs/search.md): keyword, semantic and hybrid search, and the
 * indexing jobs. Owns `message_vectors`, `search_index_pauses` and the `searchVector` column of
 * `messages`. Registers the built-in plugin `search_my_chats` with PluginsModule,
 * which cannot import this module (it imports the AI module, which imports plugins).
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(searchConfig),
    AiModule,
    ChatsModule,
    CreditsModule,
    JobsModule,
    PluginsModule,
  ],
  controllers: [SearchController],
  providers: [SearchService, SearchIndexer, MessageVectorsRepository, SearchToolRegistrar],
  exports: [SearchService, SearchIndexer],
})
export class SearchModule {}
