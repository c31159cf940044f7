import { Column, CreateDateColumn, Entity, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';

/** Names of registered plugins: they prefix their tools' names (`<name>__<tool>`). */
export const PLUGIN_NAME = /^[a-z0-9_-]{1,32}$/;

/**
 * A third-party plugin: an MCP server reached over Streamable HTTP. `headers`
 * (e.g. `Authorization`) are sealed with ENCRYPTION_KEY (SecretBox, bound to the row's id) and
 * never answered or logged; only their names are shown.
 */
@Entity('plugins')
@Unique('UQ_plugins_name', ['name'])
export class Plugin {
  /** Chosen by the service before the insert: the sealed headers are bound to it. */
  @PrimaryColumn({ type: 'uuid' }) id: string;
  @Column({ type: 'varchar', length: 32 }) name: string;
  @Column({ type: 'varchar', length: 2048 }) url: string;
  /** SecretBox.seal of the headers' JSON object (`{}` when none). */
  @Column({ type: 'text', select: false }) headers: string;
  @Column({ type: 'boolean' }) enabled: boolean;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
