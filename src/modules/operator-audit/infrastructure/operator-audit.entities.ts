import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

// The schema is made by the migrations (with the trigger that refuses UPDATE, DELETE and
// TRUNCATE); this mapping mirrors it for the schema-drift test.

/** One command of the operations CLI that changed something (ADR 0155). */
@Entity('operator_actions')
@Index('operator_actions_at', ['at'])
export class OperatorActionEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('timestamptz', { default: () => 'now()' }) at: Date;
  @Column('text') command: string;
  @Column('text', { name: 'os_user' }) osUser: string;
  @Column('text', { nullable: true }) operator: string | null;
  @Column('text', { nullable: true }) subject: string | null;
  @Column('jsonb', { default: () => "'{}'" }) details: Record<string, unknown>;
}

export const OPERATOR_AUDIT_ENTITIES = [OperatorActionEntity];
