import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChatsModule } from '../chats/chats.module';
import { ChatTag, Tag } from './tag.entity';
import { ChatTagsController, TagsController } from './tags.controller';
import { TagsService } from './tags.service';

/**
 * Private chat tags. Owns `tags` and `chat_tags`; the chat list statement of
 * `chats` reads them (one statement per page), and nothing else does.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Tag, ChatTag]), ChatsModule],
  controllers: [TagsController, ChatTagsController],
  providers: [TagsService],
})
export class TagsModule {}
