import { Module } from '@nestjs/common';
import { AiModule } from '../ai/ai.module';
import { CatalogueModule } from '../ai/catalogue.module';
import { GatewayController } from './gateway.controller';

/** `/v1`: the OpenAI wire format over AiService; it meters nothing itself. */
@Module({
  imports: [AiModule, CatalogueModule],
  controllers: [GatewayController],
})
export class GatewayModule {}
