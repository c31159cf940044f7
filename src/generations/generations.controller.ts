import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { GenerationPageDto, GenerationQueryDto } from './dto/generation.dto';
import { GenerationsService } from './generations.service';

/** Generation records (one per model call): the caller's own, or every user's for admins. */
@ApiTags('generations')
@Controller('api/generations')
export class GenerationsController {
  constructor(private readonly generations: GenerationsService) {}

  @Get()
  @Endpoint({
    summary: 'Generation records (model calls), newest first',
    description:
      "Your own model calls (through an API key: that key's only). Admins see every user's; " +
      'filters: `userId` (admins only for another user), `keyId`, `model` (the answering one), ' +
      '`upstream` (the answering one), `from` (inclusive) and `to` (exclusive).',
    access: 'session',
    scope: 'credits:read',
    errors: [
      {
        status: 403,
        description: '`userId` names another user and you are not an admin (`FORBIDDEN`)',
      },
    ],
  })
  @ApiOkResponse({ type: GenerationPageDto })
  list(
    @CurrentUser() user: SessionUser,
    @Query() q: GenerationQueryDto,
  ): Promise<GenerationPageDto> {
    return this.generations.page(user, q);
  }
}
