import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChatsModule } from '../chats/chats.module';
import { TeamsModule } from '../teams/teams.module';
import { Bookmark } from './bookmark.entity';
import { BookmarksController } from './bookmarks.controller';
import { BookmarksService } from './bookmarks.service';

/** Message bookmarks. Owns `bookmarks`; reads a message's chat through `chats`. */
@Module({
  imports: [TypeOrmModule.forFeature([Bookmark]), ChatsModule, TeamsModule],
  controllers: [BookmarksController],
  providers: [BookmarksService],
})
export class BookmarksModule {}
