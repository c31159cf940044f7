import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { UploadContentType } from './uploads.config';
import { User } from '../users/user.entity';

/** bigint ↔ number (byte counts stay far below 2^53). */
const bigintAsNumber = {
  to: (v: number) => v,
  from: (v: string | null) => (v === null ? v : Number(v)),
};

/**
 * One uploaded file (spec "Upload"), owned by `userId`; deleting the user deletes the rows
 * (cascade) and UsersService.remove their bytes. `filename` is the storage key and the
 * `/uploads/` path (served only to those UploadDownloads allows).
 */
@Entity('uploads')
export class Upload {
  @PrimaryGeneratedColumn('uuid') id: string;

  @Index('IDX_uploads_user')
  @Column({ type: 'uuid' })
  userId: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'userId' })
  user?: User;

  /**
   * `<timestampMs>-<32 hex digits>-<sanitised original name>` (older names without
   * the random part), at most 255 bytes.
   */
  @Index('UQ_uploads_filename', { unique: true })
  @Column({ type: 'varchar', length: 255 })
  filename: string;

  /** The client's base name without control characters (for Content-Disposition). */
  @Column({ type: 'varchar', length: 255 }) originalName: string;

  /** Bytes. */
  @Column({ type: 'bigint', transformer: bigintAsNumber }) size: number;

  /** Sniffed from the file's bytes, e.g. `image/png`. */
  @Column({ type: 'varchar', length: 100 }) contentType: UploadContentType;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
}
