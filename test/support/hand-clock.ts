import { Clock } from '../../src/common/clock/clock';

/**
 * A clock moved by hand from the time it was made: cooldowns end and cached copies age without
 * sleeping. `tick(ms)` moves it forward.
 */
export class HandClock extends Clock {
  at = new Date();
  now(): Date {
    return new Date(this.at);
  }
  tick(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}
