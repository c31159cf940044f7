import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { PageQueryDto } from '../../common/pagination/pagination';

/** GET /api/credits/transactions: a page, optionally only the entries made through one API key. */
export class LedgerQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'only entries made through this API key' })
  @IsOptional()
  @IsUUID()
  keyId?: string;
}
