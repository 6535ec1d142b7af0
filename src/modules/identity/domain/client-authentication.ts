/**
 * Client credentials presented to a token endpoint, in either form of RFC 6749 section
 * 2.3.1: HTTP Basic (preferred) or the body fields. Pure parsing, no lookups.
 */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/**
 * What a client id can look like: ours are `live_` or `sbx_` and 24 hex digits; this is
 * looser so the format may change, yet an id outside it names no credential and is refused
 * without a lookup (a NUL in one would even fail the query: PostgreSQL refuses it in text).
 */
export const CLIENT_ID_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

export type ClientAuthentication =
  | { kind: 'credentials'; credentials: ClientCredentials }
  | { kind: 'missing' }
  /** Not a well-formed request (RFC 6749 `invalid_request`). */
  | { kind: 'ambiguous'; reason: string }
  /** Credentials that cannot be read (RFC 6749 `invalid_client`). */
  | { kind: 'malformed'; reason: string };

export function readClientAuthentication(authorization: string | undefined, body: { client_id?: unknown; client_secret?: unknown }): ClientAuthentication {
  // RFC 6749 3.1: a parameter sent without a value is treated as omitted (form tools such
  // as Swagger UI send empty client_id= and client_secret= next to HTTP Basic).
  const inBody = given(body.client_id) || given(body.client_secret);
  if (authorization !== undefined && /^basic\s/i.test(authorization)) {
    if (inBody) {
      return { kind: 'ambiguous', reason: 'Use one client authentication method: HTTP Basic or client_id and client_secret in the body, not both.' };
    }
    return parseBasic(authorization);
  }
  if (!inBody) return { kind: 'missing' };
  if (Array.isArray(body.client_id) || Array.isArray(body.client_secret)) {
    return { kind: 'ambiguous', reason: 'client_id and client_secret must each be given once.' };
  }
  if (typeof body.client_id !== 'string' || typeof body.client_secret !== 'string' || !body.client_id || !body.client_secret) {
    return { kind: 'malformed', reason: 'client_id and client_secret must both be given once, as text.' };
  }
  return checked({ clientId: body.client_id, clientSecret: body.client_secret });
}

/**
 * The client id a token request names (HTTP Basic user or body `client_id`) when it has the
 * form of one this platform issues, whatever else is wrong with the request: its log line
 * names it, so that an operator finds a partner's failed token requests.
 */
export function presentedClientId(authorization: string | undefined, body: { client_id?: unknown }): string | undefined {
  let clientId: unknown = body.client_id;
  if (authorization !== undefined && /^basic\s/i.test(authorization)) {
    const decoded = Buffer.from(authorization.replace(/^basic\s+/i, '').trim(), 'base64').toString('utf8');
    try {
      clientId = decoded.includes(':') ? formDecode(decoded.slice(0, decoded.indexOf(':'))) : undefined;
    } catch {
      clientId = undefined;
    }
  }
  return typeof clientId === 'string' && CLIENT_ID_PATTERN.test(clientId) ? clientId : undefined;
}

const given = (value: unknown) => value !== undefined && value !== '';

function checked(credentials: ClientCredentials): ClientAuthentication {
  if (!CLIENT_ID_PATTERN.test(credentials.clientId)) return { kind: 'malformed', reason: 'The client_id is not one this platform issues.' };
  return { kind: 'credentials', credentials };
}

/**
 * RFC 6749 2.3.1: the user and password are application/x-www-form-urlencoded before
 * base64 encoding, so real clients send `partner%2D1` for `partner-1`; decode both.
 */
function parseBasic(authorization: string): ClientAuthentication {
  const encoded = authorization.replace(/^basic\s+/i, '').trim();
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { kind: 'malformed', reason: 'The Basic authorization header is not base64 of client_id:client_secret.' };
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    if (!clientSecret) return { kind: 'malformed', reason: 'The Basic authorization header carries no client secret.' };
    return checked({ clientId, clientSecret });
  } catch {
    return { kind: 'malformed', reason: 'The Basic authorization header is not correctly form-urlencoded.' };
  }
}

const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
