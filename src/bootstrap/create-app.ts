import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import { createRootLogger, NestJsonLogger } from '../observability/logger.js';
import { HttpMetrics } from '../observability/metrics.js';
import { ApiError } from '../shared/errors/api-error.js';
import { AllExceptionsFilter } from '../shared/errors/all-exceptions.filter.js';
import { surfaceOf } from '../shared/http/surfaces.js';
import { createValidationPipe } from '../shared/http/validation.js';
import { setupSwagger } from './swagger.js';

/** DECISIONS 19: bodies over 64 KiB are refused with 413. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Builds the whole HTTP service (used by `main.ts` and by the tests): Fastify with its
 * limits and logger, the Nest modules, the error filter, validation, metrics and docs.
 */
export async function createApp(config: AppConfig, databaseUrl: string): Promise<NestFastifyApplication> {
  const logger = createRootLogger(config.logLevel);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    // A caller's own x-request-id is kept when it is safe to log; otherwise we mint one.
    requestIdHeader: false,
    genReqId: (req: IncomingMessage) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Idle sockets close after a minute (a paused audio download resumes with Range);
    // a request must arrive whole within 30 s, so slow-loris clients cannot pin sockets.
    connectionTimeout: 60_000,
    keepAliveTimeout: 72_000,
    requestTimeout: 30_000,
    routerOptions: { maxParamLength: 300, ignoreTrailingSlash: true },
    // Failures of Fastify's router happen before Nest sees the request.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const failure = new ApiError(
        'invalid_request',
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is longer than any valid identifier.' : 'The URL is not correctly percent-encoded.',
      );
      reply.status(failure.status).header('x-request-id', request.id).send(failure.body);
    },
  });
  const metrics = new HttpMetrics();
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ config, databaseUrl, metrics }), adapter, {
    logger: new NestJsonLogger(logger),
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  installRequestHooks(fastify, config);
  metrics.install(fastify);
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  setupSwagger(app, config);
  await app.init();
  return app;
}

function installRequestHooks(fastify: FastifyInstance, config: AppConfig): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const refusal = refuseEarly(request, config);
    if (refusal) {
      reply.status(refusal.status).send(refusal.body);
      return;
    }
    done();
  });
}

/** Token endpoints read forms and check their own body (their errors must not be cached). */
const isTokenEndpoint = (route: string | undefined) => route?.endsWith('/oauth2/token') ?? false;

function refuseEarly(request: FastifyRequest, config: AppConfig): ApiError | undefined {
  // Surfaces this process does not serve (SERVICES) answer as if they did not exist.
  const surface = surfaceOf(request.url);
  if (surface && !config.mounts(surface)) {
    return new ApiError('not_found', `No endpoint answers ${request.method} ${request.url.split('?')[0]}.`);
  }
  // Every other body is JSON: a form or text body is refused rather than half-understood.
  const contentType = request.headers['content-type'];
  if (contentType !== undefined && !isTokenEndpoint(request.routeOptions.url)) {
    const mediaType = contentType.split(';')[0].trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return new ApiError('invalid_request', `Unsupported Content-Type "${mediaType}": send application/json.`);
    }
  }
  return undefined;
}
