import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidRequest } from '../../../shared/errors/api-error.js';
import { readClientAuthentication, type ClientCredentials } from '../domain/client-authentication.js';
import { invalidClient } from '../application/token-issuer.service.js';

/**
 * Reads a client credentials token request (contract 4.2, DECISIONS 3): form body only
 * (no query parameter at all, secrets included: the global rule of unknown parameters), `grant_type=client_credentials`, one client authentication.
 * Token answers, errors included, must never be cached.
 */
export function readTokenRequest(request: FastifyRequest, reply: FastifyReply): { client: ClientCredentials; form: Record<string, unknown> } {
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  const contentType = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') {
    throw invalidRequest('The token request body must be application/x-www-form-urlencoded.');
  }
  const form = (request.body ?? {}) as Record<string, unknown>;
  const grantType = form.grant_type;
  if (grantType === undefined || grantType === '') throw invalidRequest('grant_type is required and must be client_credentials.');
  if (Array.isArray(grantType)) throw invalidRequest('grant_type must be given once.');
  if (grantType !== 'client_credentials') {
    throw new ApiError('unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
  }
  const authentication = readClientAuthentication(request.headers.authorization, form);
  switch (authentication.kind) {
    case 'credentials':
      return { client: authentication.credentials, form };
    case 'ambiguous':
      throw invalidRequest(authentication.reason);
    case 'missing':
    case 'malformed':
      throw invalidClient();
  }
}
