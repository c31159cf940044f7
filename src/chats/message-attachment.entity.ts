import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Upload } from '../uploads/upload.entity';
import { Message } from './message.entity';

/**
 * An image a message was sent with, `position` 0..3 in the order of the message's
 * parts. Goes with its message (chat deletion) and with its upload (upload deletion).
 */
@Entity('message_attachments')
@Index('IDX_message_attachments_upload', ['uploadId'])
export class MessageAttachment {
  @PrimaryColumn({ type: 'uuid' }) messageId: string;
  @PrimaryColumn({ type: 'smallint' }) position: number;
  @Column({ type: 'uuid' }) uploadId: string;

  @ManyToOne(() => Message, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'messageId' })
  message?: Message;

  @ManyToOne(() => Upload, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'uploadId' })
  upload?: Upload;
}
