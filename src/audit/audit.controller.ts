import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { AuditService } from './audit.service';
import { AuditPageDto, AuditQueryDto, mapAuditEvent } from './dto/audit.dto';

/** The audit log for administrators (envelope C). */
@ApiTags('admin')
@Controller('api/admin/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Endpoint({
    summary: 'The audit log, newest first (admin)',
    description:
      'Filtered by actor, target, action and time range (`from` inclusive, `to` exclusive).',
    access: { roles: ['ADMIN'] },
  })
  @ApiOkResponse({ type: AuditPageDto })
  async list(@Query() q: AuditQueryDto): Promise<AuditPageDto> {
    const { limit, cursor, from, to, ...filter } = q;
    const page = await this.audit.list(
      { ...filter, from: from ? new Date(from) : undefined, to: to ? new Date(to) : undefined },
      limit,
      cursor,
    );
    return { data: page.data.map(mapAuditEvent), nextCursor: page.nextCursor };
  }
}
