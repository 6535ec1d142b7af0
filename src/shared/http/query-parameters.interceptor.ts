import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { Reflector } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ApiError } from '../errors/api-error.js';
import { byObject } from '../memo.js';

const READS_RAW_QUERY = 'http:reads-raw-query';

/**
 * For a route outside the API's operations that reads its query itself (a signed media
 * URL's proof): the rule below leaves it alone.
 */
export const ReadsRawQuery = () => SetMetadata(READS_RAW_QUERY, true);

/** The query parameters a handler declares: its query DTO's properties, or the names it reads. */
type DeclaredQuery = { names: ReadonlySet<string> } | { readsRawQuery: true };

/**
 * One rule for every operation (DECISIONS 5, ADR 0011): a query parameter the operation
 * does not declare is refused with 400 `invalid_request`, before any pipe runs. The names
 * are compared as sent, so `constructor`, `__proto__` or `toString`, which object-mapping
 * libraries skip or find on every object's prototype, are unknown like any other name; an
 * operation without query parameters refuses every one instead of ignoring it.
 */
@Injectable()
export class UnknownQueryParametersInterceptor implements NestInterceptor {
  private readonly declared = byObject('http.query-parameters', (handler: object, controller: new () => object) =>
    declaredQuery(this.reflector, controller, handler as (...args: unknown[]) => unknown),
  );

  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() === 'http') {
      const query = context.switchToHttp().getRequest<FastifyRequest>().query;
      const sent = query && typeof query === 'object' ? Object.keys(query) : [];
      if (sent.length > 0) {
        const declared = this.declared.get(context.getHandler(), context.getClass() as new () => object);
        if (!('readsRawQuery' in declared)) {
          const unknown = sent.filter((name) => !declared.names.has(name));
          if (unknown.length > 0) {
            const known = declared.names.size > 0 ? `it takes ${[...declared.names].join(', ')}` : 'it takes none';
            throw new ApiError('invalid_request', `Unknown query parameter: ${unknown.join(', ')} (${known}).`);
          }
        }
      }
    }
    return next.handle();
  }
}

function declaredQuery(reflector: Reflector, controller: new () => object, handler: (...args: unknown[]) => unknown): DeclaredQuery {
  if (reflector.getAllAndOverride<boolean>(READS_RAW_QUERY, [handler, controller])) return { readsRawQuery: true };
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<string, { index: number; data?: unknown }>;
  const parameterTypes = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler.name) ?? []) as unknown[];
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
  return { names };
}
