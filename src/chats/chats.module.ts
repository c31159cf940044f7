import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogueModule } from '../ai/catalogue.module';
import { Chat } from './chat.entity';
import { TeamsModule } from '../teams/teams.module';
import { ChatsController, TeamChatsController } from './chats.controller';
import { ChatExchanges } from './chat-exchanges.service';
import { ChatsService } from './chats.service';
import { Message } from './message.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Chat, Message]), TeamsModule, CatalogueModule],
  controllers: [ChatsController, TeamChatsController],
  providers: [ChatsService, ChatExchanges],
  exports: [ChatsService, ChatExchanges],
})
export class ChatsModule {}
