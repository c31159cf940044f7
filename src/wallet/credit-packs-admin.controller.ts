import { Body, Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { CreditPacksService } from './credit-packs.service';
import {
  AdminCreditPackDto,
  AdminCreditPacksDto,
  CreditPackDeletedDto,
  PackParamDto,
  SetCreditPackDto,
} from './dto/wallet.dto';

const ADMIN = { roles: ['ADMIN' as const] };
const PACK = {
  name: 'pack',
  description: 'the pack id (1-64 letters, digits, "-" or "_")',
  example: 'starter',
};

/** The admins' edits of the credit packs (`credit_packs` over CREDIT_PACKS), envelope C. */
@ApiTags('payments')
@Controller('api/admin/credit-packs')
export class CreditPacksAdminController {
  constructor(private readonly packs: CreditPacksService) {}

  @Get()
  @Endpoint({ summary: 'Every credit pack, on sale or not (admin)', access: ADMIN })
  @ApiOkResponse({ type: AdminCreditPacksDto })
  async list(): Promise<AdminCreditPacksDto> {
    return { packs: await this.packs.all() };
  }

  @Put(':pack')
  @ApiParam(PACK)
  @Endpoint({
    summary: 'Set a credit pack (admin): overrides the configured pack of that id, or adds one',
    access: ADMIN,
    errors: [{ status: 404, description: 'No pack id in the path' }],
    body: { type: SetCreditPackDto, example: { credits: 1000, amount: 10, currency: 'usd' } },
  })
  @ApiOkResponse({ type: AdminCreditPackDto })
  set(
    @CurrentUser() admin: SessionUser,
    @Param() { pack: id }: PackParamDto,
    @Body() dto: SetCreditPackDto,
  ): Promise<AdminCreditPackDto> {
    return this.packs.set(admin, id, dto);
  }

  @Delete(':pack')
  @HttpCode(200)
  @ApiParam(PACK)
  @Endpoint({
    summary: 'Remove an admin edit of a credit pack (admin): the configured pack applies again',
    access: ADMIN,
    errors: [{ status: 404, description: 'The pack has no admin edit' }],
  })
  @ApiOkResponse({ type: CreditPackDeletedDto })
  async reset(@Param() { pack: id }: PackParamDto): Promise<CreditPackDeletedDto> {
    await this.packs.reset(id);
    return { id, deleted: true };
  }
}
