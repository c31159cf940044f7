import { Global, Injectable, Module } from '@nestjs/common';

/** The time source of business rules ("today" for daily limits); tests substitute a fixed one. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

@Global()
@Module({ providers: [Clock], exports: [Clock] })
export class ClockModule {}
