import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';

/** Characters a typed code may have (spaces and hyphens included); longer is no code. */
export const MAX_TYPED_CODE = 64;

/** POST /api/credits/redeem. */
export class RedeemCodeDto {
  @ApiProperty({
    maxLength: MAX_TYPED_CODE,
    example: 'K7QX-3M9T-VW2R-8HJP-4NDC',
    description: 'as printed; spaces, hyphens and lower case are accepted',
  })
  @IsString()
  @MaxLength(MAX_TYPED_CODE)
  code: string;
}

/** What a redemption granted. */
export class RedemptionResultDto {
  @ApiProperty({ type: 'integer', description: 'credits granted' }) credits: number;
  @ApiProperty({ type: 'integer', description: 'the balance after the grant' }) balance: number;
}
