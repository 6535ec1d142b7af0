import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

@Entity('partners')
export class PartnerEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('text') name: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
}

@Entity('credentials')
export class CredentialEntity {
  @PrimaryColumn('text', { name: 'client_id' }) clientId: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('bytea', { name: 'secret_hash' }) secretHash: Buffer;
  @Column('text', { array: true }) scopes: string[];
  @Column('text') environment: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt: Date | null;
}

@Entity('signing_keys')
export class SigningKeyEntity {
  @PrimaryColumn('text') kid: string;
  @Column('text') issuer: string;
  @Column('jsonb', { name: 'public_jwk' }) publicJwk: Record<string, unknown>;
  @Column('text', { name: 'sealed_private_key' }) sealedPrivateKey: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column('timestamptz', { name: 'signs_from' }) signsFrom: Date;
}

export const IDENTITY_ENTITIES = [PartnerEntity, CredentialEntity, SigningKeyEntity];
