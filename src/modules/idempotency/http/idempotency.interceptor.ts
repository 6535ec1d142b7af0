import { Injectable, Logger, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, defer, from, lastValueFrom, mergeMap, of, throwError, type Observable } from 'rxjs';
import { DomainError, invalidRequest } from '../../../shared/errors/domain-error.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RULE,
  IDEMPOTENT_REPLAYED_HEADER,
  isValidIdempotencyKey,
  takesIdempotencyKey,
} from '../../../shared/http/idempotency-key.js';
import { JSON_CONTENT_TYPE, sameAnswer, type HeldIdempotencyKey } from '../../../shared/idempotency/keyed-answer.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { IdempotencyService } from '../application/idempotency.service.js';
import type { HeldKey, StoredAnswer } from '../domain/idempotency-key.repository.js';

/** Metadata of an operation whose work is one statement that stores its answer (`@TakesIdempotencyKey`). */
export const ANSWER_STORED_BY_WORK = 'idempotency:answer-stored-by-work';

/** The answer headers a client reads, stored and replayed with the body (ADR 0144). */
const REPLAYED_HEADERS = ['content-type', 'location', 'retry-after'] as const;

/**
 * Idempotency-Key at the HTTP edge (DECISIONS 30), for every operation that takes one.
 * It runs after the access guard (the key belongs to the token's partner and environment)
 * and before the validation pipe and the handler: a key is claimed, the request processed
 * as usual and its answer stored; the same request again gets that answer, marked
 * `Idempotent-Replayed: true`. A request without the header costs nothing here.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (key === undefined) return next.handle();
    const route = request.routeOptions.url;
    const principal = request.principal;
    if (!principal || route === undefined || !takesIdempotencyKey(request.method, route)) return next.handle();
    if (typeof key !== 'string' || !isValidIdempotencyKey(key)) return throwError(() => invalidRequest(IDEMPOTENCY_KEY_RULE));
    const tenant: Tenant = { partnerId: principal.partnerId, environment: principal.environment };
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return from(this.idempotency.claim(tenant, key, { method: request.method, url: request.url, body: request.body })).pipe(
      mergeMap((outcome) => {
        switch (outcome.kind) {
          case 'claimed':
            return this.process(outcome.held, request, reply, next, this.reflector.get<boolean>(ANSWER_STORED_BY_WORK, context.getHandler()));
          case 'answered':
            return of(replay(outcome.answer, reply));
          case 'in_use':
            return throwError(keyInUse);
          case 'reused':
            return throwError(
              () =>
                new DomainError('idempotency_key_reused', 'This Idempotency-Key was used with another method, path or body: use a new key for a new request.'),
            );
        }
      }),
    );
  }

  /**
   * The request, processed as usual, and its answer stored in the same transaction (ADR
   * 0158): a success is stored before it is sent, and the work commits only with it. A
   * failure gives the key up (its work rolled back with it), so a corrected retry with the
   * same key is processed. The handler is offered the held key (`HeldKey`): a work of one
   * statement stores its answer itself and needs no transaction; nothing is left to store
   * when it stored these bytes. An answer that carries a secret is stored sealed.
   */
  private process(held: HeldKey, request: FastifyRequest, reply: FastifyReply, next: CallHandler, answerStoredByWork: boolean): Observable<unknown> {
    const forWork: HeldIdempotencyKey = {
      partnerId: held.tenant.partnerId,
      environment: held.tenant.environment,
      key: held.key,
      claimToken: held.claimToken,
    };
    request.heldIdempotencyKey = forWork;
    // `next.handle()` is called inside the transaction: Nest binds the handler to the async context it is called in.
    const answered = async () => {
      const value = await lastValueFrom(next.handle(), { defaultValue: undefined });
      await this.store(held, forWork, reply, value);
      return value;
    };
    return defer(() => (answerStoredByWork ? answered() : this.idempotency.inOneTransaction(held, answered))).pipe(
      catchError((error: unknown) => from(this.giveUp(held)).pipe(mergeMap(() => throwError(() => error)))),
    );
  }

  /**
   * Stores a success's answer, or gives up the key of a failure sent as an answer. A key
   * another request took over meanwhile (this one outlived its lease) fails the request, so
   * that its work rolls back: the holder's work is the one done.
   */
  private async store(held: HeldKey, forWork: HeldIdempotencyKey, reply: FastifyReply, value: unknown): Promise<void> {
    const answer = answerOf(reply, value);
    const seal = carriesSecret(value);
    // Stored by the work's own statement: these very bytes, and nothing to seal.
    const storedWithWork = !seal && forWork.storedInWork !== undefined && sameAnswer(forWork.storedInWork, answer);
    if (answer.status >= 400) {
      await this.idempotency.release(held);
    } else if (!storedWithWork && !(await this.idempotency.complete(held, answer, { seal }))) {
      this.logger.warn(`Idempotency-Key of ${held.tenant.partnerId} (${held.tenant.environment}) was taken over before its answer was stored.`);
      throw keyInUse();
    }
  }

  private async giveUp(held: HeldKey): Promise<void> {
    // The request's own failure is what the caller needs; a key that stays held is freed by its lease.
    await this.idempotency.release(held).catch((error: Error) => this.logger.warn(`Releasing an Idempotency-Key failed: ${error.message}`));
  }
}

const keyInUse = () =>
  new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed: retry after Retry-After.', {
    retryAfterSeconds: 1,
  });

/** The answer as Fastify is about to send it: the status the handler set, the body serialized as Fastify does. */
function answerOf(reply: FastifyReply, value: unknown): StoredAnswer {
  const body = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const header = reply.getHeader(name);
    if (header !== undefined) headers[name] = String(header);
  }
  if (body !== '' && headers['content-type'] === undefined) headers['content-type'] = JSON_CONTENT_TYPE;
  return { status: reply.statusCode, headers, body };
}

/** Field names of secrets: a webhook endpoint's `secret`, a credential's `client_secret`, keys and tokens. */
const SECRET_FIELD = /secret|password|private_key|access_token|refresh_token/i;

/**
 * Whether an answer carries a secret, by its fields' names at any depth: such an answer is
 * stored sealed, so that no secret sits in plaintext in `idempotency_keys` for its 24 hours.
 */
export function carriesSecret(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object' || depth > 8) return false;
  if (Array.isArray(value)) return value.some((item) => carriesSecret(item, depth + 1));
  return Object.entries(value).some(([name, field]) => SECRET_FIELD.test(name) || carriesSecret(field, depth + 1));
}

/** Sets the stored status and headers; what the handler would have returned is the stored body, sent as is. */
function replay(answer: StoredAnswer, reply: FastifyReply): Buffer | undefined {
  reply.status(answer.status).headers(answer.headers).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
  return answer.body === '' ? undefined : Buffer.from(answer.body);
}
