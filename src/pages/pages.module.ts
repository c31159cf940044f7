import { Module } from '@nestjs/common';
import { PagesController } from './pages.controller';

/** Server-rendered pages of the payment flow (the processor's return address). */
@Module({ controllers: [PagesController] })
export class PagesModule {}
