import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { MIGRATIONS_GLOB } from './src/database/migrations-path';

/**
 * DataSource for the TypeORM CLI (`npm run migration:generate|run|revert`).
 * Uses DATABASE_URL, else the embedded server that `npm start` runs (port 54329, database `app`).
 */
export default new DataSource({
  type: 'postgres',
  url: process.env.DATABASE_URL ?? 'postgres://postgres:password@127.0.0.1:54329/app',
  entities: [__dirname + '/src/**/*.entity.{ts,js}'],
  migrations: [MIGRATIONS_GLOB],
  synchronize: false,
  uuidExtension: 'pgcrypto',
});
