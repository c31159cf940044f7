import type { Request } from 'express';
import type { Strategy as OAuth2Strategy } from 'passport-oauth2';

/** How one `authenticate` call of a passport strategy ended. */
export type StrategyOutcome =
  | { kind: 'redirect'; url: string }
  | { kind: 'success'; user: unknown }
  | { kind: 'fail'; info: unknown }
  | { kind: 'error'; error: unknown };

/**
 * Runs `strategy.authenticate(req, options)` the way passport's middleware does (an object
 * deriving from the strategy, with the action methods attached) and resolves with the action
 * it took. Unlike `AuthGuard`, a redirect also settles the promise, and the caller decides
 * what each outcome answers.
 */
export function runStrategy(
  strategy: OAuth2Strategy,
  req: Request,
  options: Record<string, unknown> = {},
): Promise<StrategyOutcome> {
  return new Promise((resolve) => {
    const actions = {
      success: (user: unknown) => resolve({ kind: 'success', user }),
      fail: (info?: unknown) => resolve({ kind: 'fail', info }),
      redirect: (url: string) => resolve({ kind: 'redirect', url }),
      error: (error: unknown) => resolve({ kind: 'error', error }),
      pass: () => resolve({ kind: 'fail', info: 'pass' }),
    };
    const run = Object.assign(Object.create(strategy) as OAuth2Strategy, actions);
    try {
      run.authenticate(req, options);
    } catch (error) {
      resolve({ kind: 'error', error });
    }
  });
}
