import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChatsModule } from '../chats/chats.module';
import { ChatShare } from './chat-share.entity';
import { ChatShareController, PublicShareController } from './shares.controller';
import { SharesService } from './shares.service';

/** Public read-only share links of chats. Owns `chat_shares`. */
@Module({
  imports: [TypeOrmModule.forFeature([ChatShare]), ChatsModule],
  controllers: [ChatShareController, PublicShareController],
  providers: [SharesService],
  // The AI module asks whether a chat has a link before running tools that read private data.
  exports: [SharesService],
})
export class SharesModule {}
