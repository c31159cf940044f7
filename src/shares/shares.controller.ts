import { Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../common/auth/auth.decorators';
import type { SessionUser } from '../common/auth/session-user';
import { ApiEnvelopeB } from '../common/openapi/api-envelope';
import { Endpoint } from '../common/openapi/endpoint.decorator';
import { SharedChatDto, ShareLinkDto, ShareStatusDto } from './dto/share.dto';
import { SharesService } from './shares.service';

const OWNER_ONLY: [{ status: number; description: string }, number] = [
  { status: 403, description: 'A team member who is not the owner (`code`: FORBIDDEN)' },
  404,
];

/** The owner's public link of a chat; envelope B. */
@ApiTags('organising')
@Controller('api/chats/:id/share')
export class ChatShareController {
  constructor(private readonly shares: SharesService) {}

  @Post()
  @Endpoint({
    summary: 'Make or refresh the public link of my chat',
    description:
      'A new token each time: the previous link stops working and the snapshot is taken again.',
    access: 'session',
    errors: OWNER_ONLY,
  })
  @ApiEnvelopeB(ShareLinkDto, { status: 201, description: 'the token is shown only here' })
  share(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<ShareLinkDto> {
    return this.shares.share(user, id);
  }

  @Get()
  @Endpoint({ summary: 'Whether my chat has a public link', access: 'session', errors: OWNER_ONLY })
  @ApiEnvelopeB(ShareStatusDto)
  status(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<ShareStatusDto> {
    return this.shares.status(user, id);
  }

  @Delete()
  @HttpCode(200)
  @Endpoint({
    summary: 'Revoke the public link of my chat',
    access: 'session',
    errors: [OWNER_ONLY[0], { status: 404, description: 'Not my chat, or it has no link' }],
  })
  @ApiEnvelopeB(null)
  async revoke(
    @CurrentUser() user: SessionUser,
    @Param('id', ParseUUIDPipe) id: string,
  ): Promise<void> {
    await this.shares.revoke(user, id);
  }
}

/** Anyone with the token reads the shared snapshot. */
@ApiTags('organising')
@Controller('api/share')
export class PublicShareController {
  constructor(private readonly shares: SharesService) {}

  @Get(':token')
  @Endpoint({
    summary: 'Read a shared chat',
    description: 'The title and messages as they were when the link was made; no user data.',
    access: 'public',
    errors: [{ status: 404, description: 'Unknown or revoked token (`code`: NOT_FOUND)' }],
  })
  @ApiEnvelopeB(SharedChatDto)
  open(@Param('token') token: string): Promise<SharedChatDto> {
    return this.shares.open(token);
  }
}
