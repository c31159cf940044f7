import { ApiProperty } from '@nestjs/swagger';
import { REFERRAL_STATUSES, type ReferralStatus } from '../referral.entity';

/** One referred user as the referrer sees them: a masked name, never an email. */
export class ReferredUserDto {
  @ApiProperty({ type: String, nullable: true, example: 'A***' }) name: string | null;
  @ApiProperty({ format: 'date-time' }) joinedAt: string;
  @ApiProperty({ enum: REFERRAL_STATUSES }) status: ReferralStatus;
}

/** `GET /api/referrals`: my code, its sign-up link, counts, credits earned and latest referrals. */
export class ReferralOverviewDto {
  @ApiProperty({ example: 'K7MZP4QX', description: '8 characters, unique' }) code: string;
  @ApiProperty({ example: 'http://localhost:3000/en/signup?ref=K7MZP4QX' }) link: string;
  @ApiProperty({ type: 'integer', description: 'users who signed up with the code' })
  invited: number;
  @ApiProperty({ type: 'integer', description: 'referrals currently rewarded' }) rewarded: number;
  @ApiProperty({ type: 'integer', description: 'credits earned, net of reversed rewards' })
  creditsEarned: number;
  @ApiProperty({ type: [ReferredUserDto], description: 'the latest 20, newest first' })
  recent: ReferredUserDto[];
}
