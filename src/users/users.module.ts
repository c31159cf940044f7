import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ModelsModule } from '../models/models.module';
import { CreditsModule } from '../credits/credits.module';
import { UploadsModule } from '../uploads/uploads.module';
import { Account } from './account.entity';
import { PreferencesController } from './preferences/preferences.controller';
import { PreferencesService } from './preferences/preferences.service';
import { ProfileController } from './profile.controller';
import { SessionCache } from './session-cache';
import { User } from './user.entity';
import { UsersController } from './users.controller';
import { UserAddresses } from './user-addresses.service';
import { UsersService } from './users.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { usersConfig } from './users.config';

@Module({
  imports: [
    ConfigSliceModule.forFeature(usersConfig),
    TypeOrmModule.forFeature([User, Account]),
    CreditsModule,
    UploadsModule,
    ModelsModule,
  ],
  controllers: [UsersController, ProfileController, PreferencesController],
  providers: [UsersService, UserAddresses, PreferencesService, SessionCache],
  // The session cache also holds session rows (src/auth/sessions): one listener per process.
  exports: [UsersService, UserAddresses, PreferencesService, SessionCache],
})
export class UsersModule {}
