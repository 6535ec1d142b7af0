import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isStatementTimeout, isTransientConflict } from '../persistence/database-errors.js';
import { ApiError } from './api-error.js';
import { DomainError } from './domain-error.js';

/**
 * The one place where failures become answers. Whatever was thrown (a DomainError or ApiError, a Nest
 * HttpException, an error from Fastify's body parsing, or a bug), the caller receives the
 * contract's error body with the status of DECISIONS 5, and never anything internal.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    const error = toApiError(exception, request);
    if (error.kind === 'server_error') {
      this.logger.error({ reqId: request.id, err: describe(exception) }, 'unexpected error');
    }
    // A handler may have set where its creation lives before the request failed (its commit, say): nothing was created.
    reply.removeHeader('location');
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    reply.status(error.status).type('application/json; charset=utf-8').send(error.body);
  }
}

/** Fastify's own failures (body parsing, limits) carry a status and an FST_ code. */
interface FrameworkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

export function toApiError(exception: unknown, request?: FastifyRequest): ApiError {
  if (exception instanceof DomainError) return ApiError.from(exception);
  if (exception instanceof HttpException) return fromHttpException(exception, request);
  if (isDatabaseUnavailable(exception)) {
    return new ApiError('temporarily_unavailable', 'The service cannot reach its database. Retry shortly.', { 'Retry-After': '5' });
  }
  if (isTransientConflict(exception)) {
    return new ApiError('temporarily_unavailable', 'A concurrent change of the same data interrupted this request; nothing was written. Retry it.', {
      'Retry-After': '1',
    });
  }
  if (isStatementTimeout(exception)) {
    return new ApiError('temporarily_unavailable', 'The request ran longer than the service allows and was stopped; nothing was written. Retry later.', {
      'Retry-After': '5',
    });
  }
  const framework = exception as FrameworkError;
  if (typeof framework?.statusCode === 'number' && framework.statusCode < 500) {
    return fromFrameworkError(framework);
  }
  return new ApiError('server_error', 'The service failed unexpectedly. Retry later; if it persists, contact support with the x-request-id of the response.');
}

function fromHttpException(exception: HttpException, request?: FastifyRequest): ApiError {
  const status = exception.getStatus();
  if (status === 404) {
    const route = request ? `${request.method} ${request.url.split('?')[0]}` : 'this route';
    return new ApiError('not_found', `No endpoint answers ${route}.`);
  }
  if (status === 413) return payloadTooLarge();
  if (status < 500) return new ApiError('invalid_request', messageOf(exception));
  return new ApiError('server_error', 'The service failed unexpectedly.');
}

function fromFrameworkError(error: FrameworkError): ApiError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('invalid_request', 'Unsupported Content-Type: send application/json (or application/x-www-form-urlencoded on the token endpoint).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', 'The body is empty but Content-Type is application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'Content-Length does not match the body.');
  }
  if (error.statusCode === 413) return payloadTooLarge();
  if (error.statusCode === 404) return new ApiError('not_found', 'Not found.');
  if (error.statusCode === 400 && /JSON/i.test(error.message ?? '')) {
    return new ApiError('invalid_request', 'The body is not valid JSON.');
  }
  return new ApiError('invalid_request', 'The request is malformed.');
}

function payloadTooLarge(): ApiError {
  return new ApiError('payload_too_large', 'The body is larger than 64 KiB.');
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

function describe(exception: unknown): unknown {
  return exception instanceof Error ? { message: exception.message, stack: exception.stack } : exception;
}
