import { join } from 'node:path';

/** Compiled (`dist/migrations/*.js`) or source (`migrations/*.ts`) migrations, from either tree. */
export const MIGRATIONS_GLOB = join(__dirname, '..', '..', 'migrations', '*.{ts,js}');
