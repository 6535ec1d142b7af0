import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import type { TestApp } from './test-app.js';

export interface RegisteredRoute {
  method: string;
  /** Fastify's form: `/v1/subscriber/:id/status`. */
  path: string;
  controller: object;
  handler: object;
  /** The path parameters the handler reads, with the pipes each goes through. */
  parameters: { name: string; pipes: object[] }[];
}

/** Every route the running app's controllers declare, one per prefix, sorted by method and path. */
export function registeredRoutes(t: TestApp): RegisteredRoute[] {
  const listed: RegisteredRoute[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as { prototype: Record<string, unknown> } & object;
      const prefixes = [Reflect.getMetadata(PATH_METADATA, controller)].flat() as string[];
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler);
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, { data?: unknown; pipes?: object[] }>;
        const parameters = Object.entries(args)
          .filter(([key, arg]) => Number(key.split(':')[0]) === RouteParamtypes.PARAM && typeof arg.data === 'string')
          .map(([, arg]) => ({ name: arg.data as string, pipes: arg.pipes ?? [] }));
        for (const prefix of prefixes) {
          listed.push({ method, path: `/${[prefix, path].filter((p) => p && p !== '/').join('/')}`, controller, handler, parameters });
        }
      }
    }
  }
  return listed.sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}
