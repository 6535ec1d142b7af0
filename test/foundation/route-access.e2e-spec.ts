import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { ACCESS_RULE, type AccessRule } from '../../src/modules/identity/http/access.decorators.js';
import { useTestApp } from '../support/test-app.js';

/**
 * Every route's access declaration, listed: a change to who may call what shows up here
 * in review. A route without a declaration fails the first test.
 */
const t = useTestApp();

function routes(): { route: string; access: string }[] {
  const listed: { route: string; access: string }[] = [];
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
        const rule: AccessRule | undefined = Reflect.getMetadata(ACCESS_RULE, handler) ?? Reflect.getMetadata(ACCESS_RULE, controller);
        const access = !rule ? 'UNDECLARED' : rule.public ? 'public' : rule.anyOfScopes.length ? `any of: ${rule.anyOfScopes.join(', ')}` : 'any valid token';
        for (const prefix of prefixes) {
          listed.push({ route: `${method} /${[prefix, path].filter((p) => p && p !== '/').join('/')}`, access });
        }
      }
    }
  }
  return listed.sort((a, b) => a.route.localeCompare(b.route));
}

test('every route declares its access', () => {
  expect(routes().filter((r) => r.access === 'UNDECLARED')).toEqual([]);
});

test('the access of every route', () => {
  expect(routes().map((r) => `${r.route} — ${r.access}`)).toMatchSnapshot();
});
