import { Controller, Get, Header, Query, Req } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { RouteAccessDto, RouteAccessQueryDto, toRouteAccessDto } from './dto/route-access.dto';
import { decideRoute } from './route-rules';

/**
 * `GET /api/route-access?path=`: the page router's decision as JSON (envelope C), for frontends
 * that render elsewhere. Public; a session sent with the request (cookie or Bearer) counts, and
 * `Accept-Language` picks the locale of a prefix redirect. Invalid or missing path → 400.
 */
@ApiTags('pages')
@Controller('api/route-access')
export class RouteAccessController {
  @Get()
  @Header('Cache-Control', 'private, no-store')
  @Endpoint({
    summary: 'Page-route decision for a path (spec Authentication 7 and 8)',
    access: 'public',
    database: false,
  })
  @ApiHeader({
    name: 'accept-language',
    required: false,
    description: 'picks the locale of a prefix redirect (`zh-CN,zh;q=0.9` → `/zh/…`); default `en`',
  })
  @ApiOkResponse({ type: RouteAccessDto })
  check(
    @Query() query: RouteAccessQueryDto,
    @CurrentUser() user: SessionUser | undefined,
    @Req() req: Request,
  ): RouteAccessDto {
    // Read from the request, not @Headers(): that would document the header as required.
    return toRouteAccessDto(decideRoute(query.path, user, req.headers['accept-language']));
  }
}
