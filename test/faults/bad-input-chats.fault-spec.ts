import { SWEEP_GROUPS } from './support/bad-input-groups';
import { sweepRoutes } from './support/bad-input-sweep';

sweepRoutes('chats', SWEEP_GROUPS.chats);
