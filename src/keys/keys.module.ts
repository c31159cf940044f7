import { TeamsModule } from '../teams/teams.module';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './api-key.entity';
import { ApiKeyStrategy } from './api-key.strategy';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysService } from './api-keys.service';
import { ConfigSliceModule } from '../config/config-slice.module';
import { keysConfig } from './keys.config';

/**
 * Personal API keys: owns `api_keys`, and the `api-key` Passport strategy that the
 * global guard tries after the session strategy. Metering of key requests happens in ai and
 * credits like any other (the key's id rides on the session user).
 */
@Module({
  imports: [
    ConfigSliceModule.forFeature(keysConfig),
    TypeOrmModule.forFeature([ApiKey]),
    TeamsModule, // who may make a team's key
  ],
  controllers: [ApiKeysController],
  providers: [ApiKeysService, ApiKeyStrategy],
  exports: [ApiKeysService],
})
export class KeysModule {}
