export { IdentityModule } from './identity.module.js';
export { PartnerCredentialsService, UnknownPartnerError, type IssuedCredential } from './application/partner-credentials.service.js';
export { SigningKeyService } from './application/signing-key.service.js';
export { CurrentPrincipal, CurrentTenant, Public, RequireScopes } from './http/access.decorators.js';
export type { Principal } from './domain/principal.js';
export { DEFAULT_SCOPES, SCOPES, parseScopes, type Scope } from './domain/scopes.js';
export { TOKEN_ISSUERS, type TokenIssuer } from './domain/token-issuers.js';
export { presentedClientId } from './domain/client-authentication.js';
