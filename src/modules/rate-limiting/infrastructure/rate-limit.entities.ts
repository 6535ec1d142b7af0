import { Column, Entity, PrimaryColumn } from 'typeorm';

// The schema is made by the migrations; this mapping mirrors it (TypeORM does not describe
// UNLOGGED) so that the schema-drift test checks this table too. The store uses plain SQL.

/** One token bucket per credential, shared by every replica. */
@Entity('rate_limit_buckets')
export class RateLimitBucketEntity {
  @PrimaryColumn('text') key: string;
  @Column('double precision') tokens: number;
  @Column('timestamptz', { name: 'refreshed_at' }) refreshedAt: Date;
  @Column('integer', { name: 'last_granted' }) lastGranted: number;
}

export const RATE_LIMIT_ENTITIES = [RateLimitBucketEntity];
