import { ApiProperty } from '@nestjs/swagger';
import { ErrorCode } from '../errors/app-error';

/**
 * Every error body (envelopes A and C): `error` (message in the request's language) and `code`.
 * Some codes add fields: INSUFFICIENT_CREDITS `{required, balance}`, PAYMENT_FAILED
 * `declineCode`, INVITATION_GONE `reason`, NOT_READY `details`.
 */
export class ErrorDto {
  @ApiProperty({ example: 'Authentication required' }) error: string;
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode', example: ErrorCode.UNAUTHORIZED })
  code: ErrorCode;
}

/** An error on an envelope-B route (users, chats, upload, teams, invitations). */
export class ErrorEnvelopeBDto extends ErrorDto {
  @ApiProperty({ enum: [false] }) success: false;
}
