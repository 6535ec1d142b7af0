import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { HeldIdempotencyKey } from '../idempotency/keyed-answer.js';
import { surfaceOf } from './surfaces.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the idempotency interceptor while a keyed request holds its key (ADR 0144). */
    heldIdempotencyKey?: HeldIdempotencyKey;
  }
}

/** The request header of DECISIONS 30 (IETF HTTPAPI "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** The answer header that marks a stored answer sent again. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
export const IDEMPOTENCY_KEY_RULE = 'Idempotency-Key must be 1 to 255 printable ASCII characters.';

const IDEMPOTENT_METHODS = new Set(['POST', 'PUT', 'DELETE']);
/** 1 to 255 printable ASCII characters (space to tilde). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * Whether an operation takes an Idempotency-Key: every POST, PUT and DELETE of the
 * platform, text and audio, and sandbox surfaces but the token endpoints (DECISIONS 30).
 * The HTTP edge and the OpenAPI document both ask this, so they never disagree.
 */
export function takesIdempotencyKey(method: string, route: string): boolean {
  if (!IDEMPOTENT_METHODS.has(method.toUpperCase())) return false;
  const surface = surfaceOf(route);
  return (surface === 'platform' || surface === 'reading' || surface === 'sandbox') && !route.endsWith('/oauth2/token');
}

export const isValidIdempotencyKey = (key: string) => VALID_KEY.test(key);

/**
 * The Idempotency-Key the request holds, if it sent one (`undefined` otherwise): for a
 * handler whose work stores its answer in its own statement (ADR 0144).
 */
export const HeldKey = createParamDecorator(
  (_: unknown, context: ExecutionContext): HeldIdempotencyKey | undefined => context.switchToHttp().getRequest<FastifyRequest>().heldIdempotencyKey,
);
