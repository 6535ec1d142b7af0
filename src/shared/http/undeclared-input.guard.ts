import { type CanActivate, type ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { Reflector } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { byObject } from '../memo.js';

const READS_RAW_QUERY = 'http:reads-raw-query';

/**
 * For a route outside the API's operations that reads its query itself (a signed media
 * URL's proof): the rule below leaves it alone.
 */
export const ReadsRawQuery = () => SetMetadata(READS_RAW_QUERY, true);

/** The input a handler declares: its query parameters (null: it reads the query itself), and whether it takes a body. */
interface DeclaredInput {
  queryNames: ReadonlySet<string> | null;
  takesBody: boolean;
}

/**
 * One rule for every operation (DECISIONS 5, ADR 0011): input the operation does not
 * declare is refused with 400 `invalid_request`, before any pipe runs.
 * - Query parameters: the names are compared as sent, so `constructor`, `__proto__` or
 *   `toString`, which object-mapping libraries skip or find on every object's prototype,
 *   are unknown like any other name; an operation without query parameters refuses every
 *   one instead of ignoring it.
 * - Bodies: an operation that takes none refuses any body, JSON as well as another type
 *   (which was already refused for its content type). The request's framing decides
 *   (Content-Length above 0, or chunked), since a GET's body is never parsed.
 * A guard, not an interceptor: it only refuses or lets pass, and a route without
 * interceptors skips Nest's per-request observable chain (ADR 0123). Installed after the
 * access guard (create-app.ts), so a request without a valid token still gets 401 first.
 */
@Injectable()
export class UndeclaredInputGuard implements CanActivate {
  private readonly declared = byObject('http.declared-input', (handler: object, controller: new () => object) =>
    declaredInput(this.reflector, controller, handler as (...args: unknown[]) => unknown),
  );

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'http') {
      const request = context.switchToHttp().getRequest<FastifyRequest>();
      const declared = this.declared.get(context.getHandler(), context.getClass() as new () => object);
      refuseUnknownQueryParameters(request.query, declared.queryNames);
      if (!declared.takesBody) refuseBody(request);
    }
    return true;
  }
}

function refuseUnknownQueryParameters(query: unknown, names: ReadonlySet<string> | null): void {
  if (names === null || !query || typeof query !== 'object') return;
  const unknown = Object.keys(query).filter((name) => !names.has(name));
  if (unknown.length === 0) return;
  const known = names.size > 0 ? `it takes ${[...names].join(', ')}` : 'it takes none';
  throw new ApiError('invalid_request', `Unknown query parameter: ${unknown.join(', ')} (${known}).`);
}

function refuseBody(request: FastifyRequest): void {
  const length = Number(request.headers['content-length'] ?? 0);
  if (length > 0 || request.headers['transfer-encoding'] !== undefined) {
    throw new ApiError('invalid_request', 'This operation takes no request body: send none.');
  }
}

function declaredInput(reflector: Reflector, controller: new () => object, handler: (...args: unknown[]) => unknown): DeclaredInput {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const parameterTypes = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler.name) ?? []) as unknown[];
  const kinds = Object.keys(args).map((key) => Number(key.split(':')[0]));
  // A handler given the whole request reads its body itself (the token endpoints' forms).
  const takesBody = kinds.some((kind) => kind === RouteParamtypes.BODY || kind === RouteParamtypes.REQUEST);
  if (reflector.getAllAndOverride<boolean>(READS_RAW_QUERY, [handler, controller])) return { queryNames: null, takesBody };
  const names = new Set<string>();
  for (const [key, arg] of Object.entries(args)) {
    if (Number(key.split(':')[0]) !== RouteParamtypes.QUERY) continue;
    if (typeof arg.data === 'string') {
      names.add(arg.data);
      continue;
    }
    const dto = parameterTypes[arg.index];
    if (typeof dto !== 'function' || dto === Object) continue;
    for (const metadata of getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false)) names.add(metadata.propertyName);
  }
  return { queryNames: names, takesBody };
}
