import type { Environment, Tenant } from '../../../shared/tenancy/tenant.js';
import type { TokenIssuer } from './token-issuers.js';

/** Who is calling, as proven by a verified access token. */
export interface Principal extends Tenant {
  readonly clientId: string;
  readonly partnerId: string;
  readonly environment: Environment;
  readonly scopes: ReadonlySet<string>;
  readonly issuer: TokenIssuer;
  /** Unix seconds. */
  readonly expiresAt: number;
}
