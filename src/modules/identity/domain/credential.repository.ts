import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { Scope } from './scopes.js';

export interface CredentialRecord {
  clientId: string;
  partnerId: string;
  secretHash: Buffer;
  scopes: Scope[];
  environment: Environment;
  revokedAt: Date | null;
}

/** Partners and their OAuth clients (DECISIONS 2). */
export abstract class CredentialRepository {
  abstract createPartner(name: string): Promise<string>;
  abstract partnerExists(partnerId: string): Promise<boolean>;
  abstract insert(credential: Omit<CredentialRecord, 'revokedAt'>): Promise<void>;
  abstract findByClientId(clientId: string): Promise<CredentialRecord | null>;
  /** Returns false when no such credential exists. */
  abstract revoke(clientId: string, at: Date): Promise<boolean>;
}
