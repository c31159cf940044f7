import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ModelsModule } from '../models/models.module';
import { Chat } from './chat.entity';
import { TeamsModule } from '../teams/teams.module';
import { UploadStorageModule } from '../uploads/upload-storage.module';
import { ChatsController, TeamChatsController } from './chats.controller';
import { ChatAttachments } from './chat-attachments.service';
import { ChatExchanges } from './chat-exchanges.service';
import { MessageAttachment } from './message-attachment.entity';
import { ChatsService } from './chats.service';
import { Message } from './message.entity';

@Module({
  imports: [
    TypeOrmModule.forFeature([Chat, Message, MessageAttachment]),
    TeamsModule,
    ModelsModule,
    // Signed links to the images messages carry; no feature module behind it.
    UploadStorageModule,
  ],
  controllers: [ChatsController, TeamChatsController],
  providers: [ChatsService, ChatExchanges, ChatAttachments],
  exports: [ChatsService, ChatExchanges, ChatAttachments],
})
export class ChatsModule {}
