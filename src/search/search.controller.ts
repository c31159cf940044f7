import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Page } from '../common/envelope/envelope';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { SearchQueryDto, SearchResultDto } from './dto/search.dto';
import { SearchService } from './search.service';

/** Search the messages of every chat I can read; envelope B. */
@ApiTags('organising')
@Controller('api/search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get()
  @Endpoint({
    summary: 'Search my chats',
    description:
      'Messages of my chats and of the chats shared with my teams, best first. `keyword`: full ' +
      'text (English stems, Chinese bigrams); `semantic`: embeddings (costs credits, like any ' +
      'model call); `hybrid` (default): reciprocal rank fusion of both, or keyword alone when no ' +
      'embeddings model is configured.',
    access: 'session',
    errors: [
      { status: 400, description: '`SEMANTIC_SEARCH_UNAVAILABLE`, or a bad query' },
      402,
      {
        status: 429,
        description: 'Daily credit limit (`DAILY_LIMIT_REACHED`) or the provider (`RATE_LIMIT`)',
      },
      { status: 500, description: 'The embeddings provider failed (`UNKNOWN_ERROR`)' },
    ],
  })
  @ApiEnvelopeB(SearchResultDto, { paginated: true, description: 'best first' })
  async find(
    @CurrentUser() user: SessionUser,
    @Query() q: SearchQueryDto,
  ): Promise<Page<SearchResultDto>> {
    const page = await this.search.search(user.id, q, user.apiKey?.id);
    return new Page(page.data, page.nextCursor);
  }
}
