import { SWEEP_GROUPS } from './support/bad-input-groups';
import { sweepRoutes } from './support/bad-input-sweep';

// The bad-input sweep of the accounts routes: one test per route (see support/bad-input-sweep.ts).
sweepRoutes('accounts', SWEEP_GROUPS.accounts);
