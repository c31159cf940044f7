import { Column, CreateDateColumn, Entity, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';
import type { UpstreamProvider } from './upstream-router.types';

/** Names of upstreams: their metrics label, so short and without `:` (kept for `env:<provider>`). */
export const UPSTREAM_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * One place a provider's models can be called: base URL and API key, the catalogue models it
 * serves, and its place in the routing order. The key is sealed with ENCRYPTION_KEY (SecretBox,
 * bound to the row's id) and never answered or logged.
 */
@Entity('upstreams')
@Unique('UQ_upstreams_name', ['name'])
export class Upstream {
  /** Chosen by the service before the insert: the sealed key is bound to it. */
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'varchar', length: 20 }) provider: UpstreamProvider;
  @Column({ type: 'varchar', length: 64 }) name: string;
  @Column({ type: 'varchar', length: 2048 }) baseUrl: string;
  /** SecretBox.seal of the API key; null when the upstream needs none (a local server). */
  @Column({ type: 'text', nullable: true }) apiKeySealed: string | null;
  /** Catalogue ids served; empty: every catalogue model of the provider's family. */
  @Column({ type: 'text', array: true, default: () => "'{}'" }) models: string[];
  /** Catalogue id → the model name sent upstream. */
  @Column({ type: 'jsonb', default: () => "'{}'" }) modelMap: Record<string, string>;
  /** Higher first. */
  @Column({ type: 'int', default: 0 }) priority: number;
  /** Share of the draws within its priority group, at least 1. */
  @Column({ type: 'int', default: 1 }) weight: number;
  @Column({ type: 'boolean', default: true }) enabled: boolean;
  /** Requests per minute, all instances together (null: no ceiling); see UpstreamRouter.admit. */
  @Column({ type: 'int', nullable: true }) rpm: number | null;
  /** Tokens (prompt + completion) per minute, all instances together (null: no ceiling). */
  @Column({ type: 'int', nullable: true }) tpm: number | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
