import {
  Column,
  CreateDateColumn,
  Entity,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

/**
 * Spec "Team". Deleting a team deletes its memberships and invitations (ON DELETE CASCADE);
 * its chats stay with their owners, unshared (`chats.teamId` ON DELETE SET NULL).
 */
@Entity('teams')
export class Team {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'varchar', length: 100 }) name: string;
  @Column({ type: 'varchar', length: 1000, nullable: true }) description: string | null;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
