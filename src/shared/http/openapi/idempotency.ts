import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import { IDEMPOTENCY_KEY_RULE, takesIdempotencyKey } from '../idempotency-key.js';
import { isProtected, operationsOf } from './operations.js';
import { DATABASE_UNREACHABLE } from './responses.js';

const PARAMETER: ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    `Makes the write safe to retry (DECISIONS 30): the first request with a key is processed and its answer kept 24 hours; the same request ` +
    `with the same key again gets that answer, with \`Idempotent-Replayed: true\`, and nothing is done twice. Keys belong to your partner and ` +
    `environment; use a new random one (a UUID) per operation. ${IDEMPOTENCY_KEY_RULE} Refused requests are not kept: a corrected retry may reuse the key.`,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const REPLAYED = {
  description: '`true` on an answer replayed for a repeated Idempotency-Key; absent on the answer of a request processed now.',
  required: false,
  schema: { type: 'string', enum: ['true'] },
};

const IN_USE = 'idempotency_key_in_use: a request with this Idempotency-Key is still being processed; retry after Retry-After (1 s)';
const REUSED = 'idempotency_key_reused: this Idempotency-Key was used with another method, path or body';
/** A keyed write's 503 has a second cause: its slots stayed full (ADR 0158). */
const BUSY = `${DATABASE_UNREACHABLE}, or (with an Idempotency-Key) too many keyed writes were in progress for 5 s; retry after Retry-After`;

type Responses = Record<string, { description?: string; headers?: Record<string, unknown> }>;

/** Adds `… ; code: when` to a response's description, or declares the response. */
function addAnswer(responses: Responses, status: string, description: string): void {
  const response = (responses[status] ??= {});
  response.description = response.description ? `${response.description}; ${description}` : description;
}

/**
 * Documents Idempotency-Key on every operation that takes it (the same predicate as the
 * interceptor): the optional header, the 409, 422 and 503 it can answer, and
 * `Idempotent-Replayed` on its successes. Runs before declareResponses, which gives the
 * error answers their body and keeps the headers set here.
 */
export function documentIdempotencyKeys(document: OpenAPIObject): void {
  for (const { path, method, operation } of operationsOf(document)) {
    if (!isProtected(operation) || !takesIdempotencyKey(method, path)) continue;
    operation.parameters = [...(operation.parameters ?? []), { ...PARAMETER }];
    const responses = operation.responses as Responses;
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith('2')) response.headers = { ...response.headers, 'Idempotent-Replayed': REPLAYED };
    }
    addAnswer(responses, '409', IN_USE);
    responses['409'].headers = {
      ...responses['409'].headers,
      'Retry-After': {
        description: 'With idempotency_key_in_use: seconds to wait before retrying (1).',
        required: false,
        schema: { type: 'integer', minimum: 1 },
      },
    };
    addAnswer(responses, '422', REUSED);
    addAnswer(responses, '503', BUSY);
  }
}
