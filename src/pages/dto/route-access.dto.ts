import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, ValidateBy } from 'class-validator';
import { parsePath, type RouteDecision } from '../route-rules';

/** `GET /api/route-access?path=`: a request path with optional query, e.g. `/zh/admin/users`. */
export class RouteAccessQueryDto {
  @ApiProperty({
    example: '/zh/admin/users',
    maxLength: 2048,
    description: 'path and optional query, starting with `/`',
  })
  @IsString()
  @ValidateBy({
    name: 'isRoutePath',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && parsePath(value).kind !== 'invalid',
      defaultMessage: () =>
        'path must be a URL path starting with / (at most 2048 characters, valid percent-encoding)',
    },
  })
  path: string;
}

/** The page-route decision for a path, for frontends that render elsewhere. */
export class RouteAccessDto {
  @ApiProperty({ enum: ['allow', 'redirect', 'notFound'] })
  action: RouteDecision['action'];

  @ApiPropertyOptional({
    example: '/zh/unauthorized',
    description: 'where to send the browser; only with `redirect`',
  })
  location?: string;
}

/** Maps a decision to its JSON answer: `{action}`, plus `location` for a redirect. */
export function toRouteAccessDto(decision: RouteDecision): RouteAccessDto {
  return decision.action === 'redirect'
    ? { action: decision.action, location: decision.location }
    : { action: decision.action };
}
