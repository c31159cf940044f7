import { Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { ChatsModule } from '../chats/chats.module';
import { CreditsModule } from '../credits/credits.module';
import { JobsModule } from '../jobs/jobs.module';
import { MessageVectorsRepository } from './message-vectors.repository';
import { SearchIndexer } from './search-indexer.service';
import { SearchController } from './search.controller';
import { SearchService } from './search.service';

/**
 * Chat search (issue 15, docs/search.md): keyword, semantic and hybrid search, and the
 * indexing jobs. Owns `message_vectors`, `search_index_pauses` and the `searchVector` column of
 * `messages`. SearchService is exported for the `search_my_chats` plugin (issue 18).
 */
@Module({
  imports: [AiModule, ChatsModule, CreditsModule, JobsModule],
  controllers: [SearchController],
  providers: [SearchService, SearchIndexer, MessageVectorsRepository],
  exports: [SearchService, SearchIndexer],
})
export class SearchModule {}
