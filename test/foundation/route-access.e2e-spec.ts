import { ACCESS_RULE, type AccessRule } from '../../src/modules/identity/http/access.decorators.js';
import { registeredRoutes } from '../support/routes.js';
import { useTestApp } from '../support/test-app.js';

/**
 * Every route's access declaration, listed: a change to who may call what shows up here
 * in review. A route without a declaration fails the first test.
 */
const t = useTestApp();

function routes(): { route: string; access: string }[] {
  return registeredRoutes(t).map(({ method, path, controller, handler }) => {
    const rule: AccessRule | undefined = Reflect.getMetadata(ACCESS_RULE, handler) ?? Reflect.getMetadata(ACCESS_RULE, controller);
    const access = !rule ? 'UNDECLARED' : rule.public ? 'public' : rule.anyOfScopes.length ? `any of: ${rule.anyOfScopes.join(', ')}` : 'any valid token';
    return { route: `${method} ${path}`, access };
  });
}

test('every route declares its access', () => {
  expect(routes().filter((r) => r.access === 'UNDECLARED')).toEqual([]);
});

test('the access of every route', () => {
  expect(routes().map((r) => `${r.route} — ${r.access}`)).toMatchSnapshot();
});
