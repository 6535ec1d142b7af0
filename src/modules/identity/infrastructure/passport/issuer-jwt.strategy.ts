import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import passport from 'passport';
import { Strategy, type StrategyOptionsWithoutRequest } from 'passport-jwt';
import type { AppConfig } from '../../../../config/app-config.js';
import { DomainError } from '../../../../shared/errors/domain-error.js';
import { isDatabaseUnavailable } from '../../../../shared/persistence/database-errors.js';
import { type DecodedToken, invalidToken, toPrincipal } from '../../domain/access-token.js';
import type { Principal } from '../../domain/principal.js';
import { CLOCK_SKEW_SECONDS, issuerUrl, type TokenIssuer } from '../../domain/token-issuers.js';

/** Where an issuer's public key for a `kid` comes from (the database, or a JWKS URL). */
export type VerificationKeys = (kid: string) => Promise<KeyObject | undefined>;

/** What the verifier hands Passport: the raw token and its decoded, untrusted parts. */
interface BearerToken {
  token: string;
  decoded: DecodedToken;
}

/**
 * Strategies register themselves with a Passport when constructed. Each gets one of its own
 * rather than the process-wide `passport` singleton, where two applications in one process
 * (test files, the CLI beside the service) would replace each other's strategies.
 */
const ownPassport = new WeakMap<object, passport.Authenticator>();
const passportOf = (strategy: object) => {
  let instance = ownPassport.get(strategy);
  if (!instance) ownPassport.set(strategy, (instance = new passport.Authenticator()));
  return instance;
};

/**
 * The passport-jwt strategy of one token issuer (DECISIONS 3): ES256 only, the key found by
 * `kid`, `iss` and `aud` checked, `exp`/`nbf` with 30 s of skew. Failures become the same
 * `invalid_token` answers the service has always given; infrastructure failures (database,
 * key set unreachable) pass through unchanged so they answer 503, not 401.
 */
export function issuerJwtStrategy(issuer: TokenIssuer) {
  const name = `${issuer}-jwt`;

  abstract class IssuerJwtStrategy extends PassportStrategy(Strategy, name) {
    constructor(keys: VerificationKeys, config: AppConfig) {
      super(strategyOptions(issuer, keys, config));
    }

    validate(claims: Record<string, unknown>): Principal {
      return toPrincipal(claims, issuer);
    }

    /** Called by the @nestjs/passport mixin to register the strategy (not in its typings). */
    getPassportInstance(): passport.Authenticator {
      return passportOf(this);
    }

    /** Runs Passport on a token the verifier has not seen before. */
    authenticateToken(token: string, decoded: DecodedToken): Promise<Principal> {
      return new Promise((resolve, reject) => {
        const request: BearerToken = { token, decoded };
        const authenticate = passportOf(this).authenticate(name, { session: false }, (error: unknown, principal: Principal | false, failure: unknown) => {
          if (error) reject(refusal(error));
          else if (principal) resolve(principal);
          else reject(refusal(failure));
        });
        authenticate(request, {}, reject);
      });
    }
  }
  return IssuerJwtStrategy;
}

function strategyOptions(issuer: TokenIssuer, keys: VerificationKeys, config: AppConfig): StrategyOptionsWithoutRequest {
  const expectedIssuer = issuerUrl(config.publicBaseUrl, issuer);
  return {
    jwtFromRequest: (request: BearerToken) => request.token,
    secretOrKeyProvider: (request: BearerToken, _raw: string, done: (error: unknown, key?: string | Buffer) => void) => {
      // passport-jwt's typings say string | Buffer, but jsonwebtoken takes a KeyObject too,
      // and then does not parse a PEM on every verification.
      keyFor(request.decoded, expectedIssuer, keys).then((key) => done(null, key as unknown as Buffer), done);
    },
    algorithms: ['ES256'],
    issuer: expectedIssuer,
    audience: config.publicBaseUrl,
    jsonWebTokenOptions: { clockTolerance: CLOCK_SKEW_SECONDS },
  };
}

/** Checked in the order the service always has, so each refusal keeps its description. */
async function keyFor({ header, payload }: DecodedToken, expectedIssuer: string, keys: VerificationKeys): Promise<KeyObject> {
  if (header.alg !== 'ES256') throw invalidToken('The access token must be signed with ES256.');
  if (payload.iss !== expectedIssuer || typeof header.kid !== 'string') throw invalidToken('The access token was not issued by this platform.');
  const key = await keys(header.kid);
  if (!key) throw invalidToken('The access token is signed by an unknown key.');
  return key;
}

/**
 * What Passport reports for a refused token. Only an outage (the database, or the key set
 * URL, which arrives as a temporarily_unavailable DomainError) and our own refusals pass through; anything else jsonwebtoken or its
 * signature library throws about the token (a wrong signature length is a TypeError from
 * jwa, not a JsonWebTokenError) is a token that does not verify: 401, never a 500.
 */
function refusal(failure: unknown): unknown {
  if (failure instanceof DomainError || isDatabaseUnavailable(failure)) return failure;
  if ((failure as Error | undefined)?.name === 'TokenExpiredError') return invalidToken('The access token has expired.');
  return invalidToken('The access token signature or claims are invalid.');
}
