import { SWEEP_GROUPS } from './support/bad-input-groups';
import { sweepRoutes } from './support/bad-input-sweep';

sweepRoutes('platform', SWEEP_GROUPS.platform);
