import {
  Check,
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
@Check('CHK_teams_credits_non_negative', '"credits" >= 0')
export class Team {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'varchar', length: 100 }) name: string;
  @Column({ type: 'varchar', length: 1000, nullable: true }) description: string | null;
  /**
   * The pool's balance in credits (≥ 0), written only by the credits module with its ledger entry
   * (`credit_transactions.teamId`), as `users.credits` is.
   */
  @Column({ type: 'integer', default: 0, select: false }) credits: number;
  @CreateDateColumn({ type: 'timestamptz', precision: 3 }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz', precision: 3 }) updatedAt: Date;
}
