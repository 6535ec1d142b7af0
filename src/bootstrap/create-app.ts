import type { Type } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Bindings, ChildLoggerOptions, DestinationStream, Logger } from 'pino';
import { AppModule } from '../app.module.js';
import { HTTP_KEEP_ALIVE_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, type AppConfig } from '../config/app-config.js';
import { createRootLogger, NestJsonLogger } from '../observability/logger.js';
import { HttpMetrics } from '../observability/metrics.js';
import { requestLogger } from '../observability/request-logger.js';
import { parseTraceparent } from '../observability/trace-context.js';
import { SubscriberLogIds } from '../shared/crypto/subscriber-log-ids.js';
import { ApiError } from '../shared/errors/api-error.js';
import { ShutdownSignal } from '../shared/shutdown-signal.js';
import { AllExceptionsFilter } from '../shared/errors/all-exceptions.filter.js';
import { inputProblem } from '../shared/http/input-limits.js';
import { surfacesServing } from '../shared/http/surfaces.js';
import { UndeclaredInputGuard } from '../shared/http/undeclared-input.guard.js';
import { createValidationPipe } from '../shared/http/validation.js';
import { trackAllowedMethods } from './allowed-methods.js';
import { securityHeaders } from './security-headers.js';
import { setupSwagger } from './swagger.js';
import { proxyTrust } from './trusted-proxies.js';
import { presentedClientId } from '../modules/identity/index.js';

/** DECISIONS 19: bodies over 64 KiB are refused with 413. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Builds the whole HTTP service (used by `main.ts` and by the tests): Fastify with its
 * limits and logger, the Nest modules, the error filter, validation, metrics and docs.
 * Logs go to stdout unless a test passes a destination to read them. `extraModules` are
 * mounted beside the service's own: only the bench passes any (its framework probes,
 * bench/probes/framework.ts); `main.ts` passes none, so no setting can mount them.
 */
export async function createApp(
  config: AppConfig,
  databaseUrl: string,
  logDestination?: DestinationStream,
  extraModules: readonly Type[] = [],
): Promise<NestFastifyApplication> {
  const logger = createRootLogger(config.logLevel, new SubscriberLogIds(config.serverSecret), logDestination);
  const adapter = new FastifyAdapter({
    // Fastify's own server lines ("Server listening at …", one per interface) would follow
    // the start banner: they are logged from warn up. Request lines keep LOG_LEVEL, since
    // each request's logger is made from the root logger.
    loggerInstance: logger.child({}, { level: logger.isLevelEnabled('warn') ? 'warn' : logger.level }),
    // Every line of a request carries the caller's W3C trace id when it sent one.
    childLoggerFactory: (_serverLogger: unknown, bindings: Bindings, options: ChildLoggerOptions, raw: IncomingMessage) => {
      const trace = parseTraceparent(raw.headers.traceparent);
      return requestLogger(logger, trace ? { ...bindings, trace_id: trace.traceId, parent_span_id: trace.parentId } : bindings, options);
    },
    logController: new OneLinePerRequest(),
    bodyLimit: BODY_LIMIT_BYTES,
    // request.ip, which keys the per-address limits, comes from X-Forwarded-For only when
    // the proxy that set it is trusted; otherwise any client could name any address.
    // It is the rightmost address the trusted proxies did not write (trusted-proxies.ts).
    trustProxy: proxyTrust(config.trustProxy),
    // A caller's own x-request-id is kept when it is safe to log; otherwise we mint one.
    requestIdHeader: false,
    genReqId: (req: IncomingMessage) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Idle sockets close after a minute (a paused audio download resumes with Range). So
    // that slow-loris clients, which keep a socket busy with a byte now and then, cannot
    // pin sockets, the headers must arrive within HTTP_HEADERS_TIMEOUT_MS of connecting
    // and the whole request within 30 s. Node enforces both only when it checks its
    // connections, every 30 s by default, which would let a stalled client hold its socket
    // that much longer: here it checks at a quarter of the headers timeout, at most 1 s.
    connectionTimeout: 60_000,
    keepAliveTimeout: HTTP_KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: config.httpHeadersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.httpHeadersTimeoutMs / 4)),
    },
    clientErrorHandler: answerClientError,
    // Requests that arrive once a shutdown began get the contract's 503 (installRequestHooks),
    // not Fastify's own body.
    return503OnClosing: false,
    routerOptions: { maxParamLength: 300, ignoreTrailingSlash: true },
    // Failures of Fastify's router happen before Nest sees the request.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const failure = new ApiError(
        'invalid_request',
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is longer than any valid identifier.' : 'The URL is not correctly percent-encoded.',
      );
      reply.status(failure.status).header('x-request-id', request.id).header('x-content-type-options', 'nosniff').send(failure.body);
    },
  });
  const metrics = new HttpMetrics();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ config, databaseUrl, metrics, extraModules }), adapter, {
    logger: new NestJsonLogger(logger),
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  installRequestHooks(fastify, config, app.get(ShutdownSignal));
  metrics.install(fastify);
  app.useGlobalFilters(new AllExceptionsFilter());
  // After the access guard: APP_GUARD providers joined the global guards when NestFactory.create loaded the modules.
  app.useGlobalGuards(new UndeclaredInputGuard(app.get(Reflector)));
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app, config);
  await app.init();
  return app;
}

/**
 * Node's HTTP parser fails some connections before there is a request to route: headers
 * or request too slow, headers too large, bytes that are not HTTP. They get the contract's
 * error body too (Fastify's default answers with a shape of its own), then the socket closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const failure =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new ApiError('request_timeout', 'The request did not arrive in time: send its headers at once and the whole request within 30 s.')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new ApiError('headers_too_large', 'The request headers are too large.')
        : new ApiError('invalid_request', 'The request is not valid HTTP/1.1.');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(failure.body);
  const head = [
    `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    'X-Content-Type-Options: nosniff',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  // Destroyed once the answer is flushed: a stalled client would never close its side.
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

/**
 * One log line per request, written when it completes, with the request and the answer
 * (Fastify's default writes two, "incoming request" and "request completed", at info:
 * twice the serialisation and the redaction for the same facts).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // Who called: the credential and partner of a request that presented a valid token, or
    // the client id a token request presented (well-formed, whether or not it was accepted).
    // Read at the end, so that a request refused before its handler (an unknown parameter) is named too.
    const presented = request.routeOptions.url?.endsWith('/oauth2/token')
      ? presentedClientId(request.headers.authorization, (request.body ?? {}) as { client_id?: unknown })
      : undefined;
    const caller = request.principal
      ? { client_id: request.principal.clientId, partner_id: request.principal.partnerId }
      : presented
        ? { client_id: presented }
        : {};
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime, ...caller }, 'request errored');
    } else if ((reply.log as Logger).isLevelEnabled('info')) {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime, ...caller }, 'request completed');
    }
  }
}

function installRequestHooks(fastify: FastifyInstance, config: AppConfig, shutdown: ShutdownSignal): void {
  const setSecurityHeaders = securityHeaders(config);
  const allowedMethods = trackAllowedMethods(fastify, (route) => isServed(route, config));
  // From SIGTERM on (or a close without one): requests in flight finish, on connections
  // that close after them; new ones, readiness included, are sent elsewhere.
  fastify.addHook('preClose', (done) => {
    shutdown.begin();
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (shutdown.draining) reply.header('connection', 'close');
    done(null, payload);
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    setSecurityHeaders(request.url, reply);
    if (shutdown.draining) {
      shutdown.recordRefusal();
      const refusal = new ApiError('temporarily_unavailable', 'This replica is shutting down: retry, another one answers.', { 'Retry-After': '1' });
      reply.status(refusal.status).headers(refusal.headers).header('connection', 'close').send(refusal.body);
      return;
    }
    // The method first: a path that exists answers 405 whatever the body (DECISIONS 5).
    const refusal = wrongMethod(request, allowedMethods) ?? refuseEarly(request, config);
    if (refusal) {
      reply.status(refusal.status).headers(refusal.headers).send(refusal.body);
      return;
    }
    done();
  });
  // After parsing, before anything walks the body or queries with it (see inputProblem).
  fastify.addHook('preValidation', (request, reply, done) => {
    const problem = inputProblem(request.body, 'body') ?? inputProblem(request.query, 'query');
    if (problem) {
      const refusal = new ApiError('invalid_request', problem);
      reply.status(refusal.status).send(refusal.body);
      return;
    }
    done();
  });
}

/** A path no route matched for this method, but that other methods answer: 405 with Allow. */
function wrongMethod(request: FastifyRequest, allowedMethods: (path: string) => string[] | undefined): ApiError | undefined {
  if (request.routeOptions.url !== undefined) return undefined;
  const path = request.url.split('?')[0];
  const allow = allowedMethods(path);
  if (!allow) return undefined;
  return new ApiError('method_not_allowed', `${path} does not answer ${request.method}; it answers ${allow.join(', ')}.`, { Allow: allow.join(', ') });
}

/** Token endpoints read forms and check their own body (their errors must not be cached). */
const isTokenEndpoint = (route: string | undefined) => route?.endsWith('/oauth2/token') ?? false;

/** Whether this process serves the route: its surface is mounted, or it belongs to none (docs, health). */
function isServed(route: string, config: AppConfig): boolean {
  const owners = surfacesServing(route);
  return owners.length === 0 || owners.some((surface) => config.mounts(surface));
}

function refuseEarly(request: FastifyRequest, config: AppConfig): ApiError | undefined {
  const route = request.routeOptions.url;
  // No route: the 404 that follows says so, whatever the body.
  if (route === undefined) return undefined;
  // Surfaces this process does not serve (SERVICES) answer as if they did not exist. The
  // matched route decides, not the raw URL: the router decodes `/%73andbox/v1` to a
  // sandbox route that a check of the raw text would not recognise.
  if (!isServed(route, config)) {
    return new ApiError('not_found', `No endpoint answers ${request.method} ${request.url.split('?')[0]}.`);
  }
  // Every other body is JSON: a form or text body is refused rather than half-understood.
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && !isTokenEndpoint(route)) {
    const mediaType = contentType.split(';')[0].trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return new ApiError('invalid_request', `Unsupported Content-Type "${mediaType}": send application/json.`);
    }
  }
  return undefined;
}
