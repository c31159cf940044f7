import { Controller, Get, Header, Headers, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
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
  @ApiOkResponse({ type: RouteAccessDto })
  check(
    @Query() query: RouteAccessQueryDto,
    @CurrentUser() user: SessionUser | undefined,
    @Headers('accept-language') acceptLanguage?: string,
  ): RouteAccessDto {
    return toRouteAccessDto(decideRoute(query.path, user, acceptLanguage));
  }
}
