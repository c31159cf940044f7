/**
 * A start-up failure the operator can fix (invalid configuration, an unreachable or occupied
 * embedded database). main.ts prints its message alone, without a stack: the message says what
 * is wrong and what to do.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
