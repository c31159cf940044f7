import { Controller, Get, Header, Headers, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Public } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiErrors } from '../common/openapi/api-errors';
import { RouteAccessDto, RouteAccessQueryDto, toRouteAccessDto } from './dto/route-access.dto';
import { decideRoute } from './route-rules';

/**
 * `GET /api/route-access?path=`: the page router's decision as JSON (envelope C), for frontends
 * that render elsewhere. Public; a session sent with the request (cookie or Bearer) counts, and
 * `Accept-Language` picks the locale of a prefix redirect. Invalid or missing path → 400.
 */
@ApiTags('pages')
@Public()
@Controller('api/route-access')
export class RouteAccessController {
  @Get()
  @Header('Cache-Control', 'private, no-store')
  @ApiOperation({ summary: 'Page-route decision for a path (spec Authentication 7 and 8)' })
  @ApiOkResponse({ type: RouteAccessDto })
  @ApiErrors(400)
  check(
    @Query() query: RouteAccessQueryDto,
    @CurrentUser() user: SessionUser | undefined,
    @Headers('accept-language') acceptLanguage?: string,
  ): RouteAccessDto {
    return toRouteAccessDto(decideRoute(query.path, user, acceptLanguage));
  }
}
