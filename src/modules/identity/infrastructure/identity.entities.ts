import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

// The schema is made by the migrations; these mappings mirror them exactly (names included)
// so that generating a migration from the entities finds nothing to change.

@Entity('partners')
export class PartnerEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity('credentials')
@Index('credentials_partner', ['partnerId'])
@Check('credentials_environment_check', `environment IN ('live', 'sandbox')`)
export class CredentialEntity {
  @PrimaryColumn('text', { name: 'client_id' }) clientId: string;
  @Column('uuid', { name: 'partner_id' })
  @ForeignKey(() => PartnerEntity, 'id', { name: 'credentials_partner_id_fkey' })
  partnerId: string;
  @Column('bytea', { name: 'secret_hash' }) secretHash: Buffer;
  /** The fingerprint of the root secret whose pepper made secret_hash (ADR 0003). */
  @Column('text', { name: 'secret_fingerprint', nullable: true }) secretFingerprint: string | null;
  @Column('text', { array: true }) scopes: string[];
  @Column('text') environment: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
  /** When it last obtained a token, to the minute (ADR 0155). */
  @Column('timestamptz', { name: 'last_used_at', nullable: true }) lastUsedAt: Date | null;
}

@Entity('signing_keys')
@Index('signing_keys_issuer', ['issuer', 'signsFrom'])
@Check('signing_keys_issuer_check', `issuer IN ('platform', 'kids')`)
export class SigningKeyEntity {
  @PrimaryColumn('text') kid: string;
  @Column('text') issuer: string;
  @Column('jsonb', { name: 'public_jwk' }) publicJwk: Record<string, unknown>;
  @Column('text', { name: 'sealed_private_key' }) sealedPrivateKey: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'signs_from' }) signsFrom: Date;
}

export const IDENTITY_ENTITIES = [PartnerEntity, CredentialEntity, SigningKeyEntity];
