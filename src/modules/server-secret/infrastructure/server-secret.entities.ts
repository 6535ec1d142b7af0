import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

// The schema is made by the migrations; this mapping mirrors it for the schema-drift test.

/** The one row: the fingerprint of the root secret the database is sealed and hashed with. */
@Entity('server_secret')
@Check('server_secret_id_check', 'id = 1')
export class ServerSecretEntity {
  @PrimaryColumn('smallint', { default: 1 }) id: number;
  @Column('text') fingerprint: string;
  @Column('timestamptz', { name: 'recorded_at', default: () => 'now()' }) recordedAt: Date;
}

export const SERVER_SECRET_ENTITIES = [ServerSecretEntity];
