import { ApiProperty } from '@nestjs/swagger';
import { MESSAGE_ROLES } from '../../chats/message.entity';

/** POST /api/chats/{id}/share: the token, shown once, and the page address that opens it. */
export class ShareLinkDto {
  @ApiProperty({ description: '32 random bytes, base64url; only its SHA-256 is stored' })
  token: string;
  @ApiProperty({ example: 'http://localhost:3000/share/3q2-7w…' }) url: string;
}

/** GET /api/chats/{id}/share: whether the chat has a live link, and since when. */
export class ShareStatusDto {
  @ApiProperty() shared: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'when the link was made or refreshed' })
  createdAt: string | null;
}

export class SharedMessageDto {
  @ApiProperty({ enum: MESSAGE_ROLES }) role: string;
  @ApiProperty() content: string;
  @ApiProperty() createdAt: string;
}

/** GET /api/share/{token}: the chat as it was when shared; no emails, no user ids. */
export class SharedChatDto {
  @ApiProperty() title: string;
  @ApiProperty() sharedAt: string;
  @ApiProperty({ type: [SharedMessageDto], description: 'oldest first' })
  messages: SharedMessageDto[];
}
