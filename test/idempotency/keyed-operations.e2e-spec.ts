import { INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { IdempotencyInterceptor } from '../../src/modules/idempotency/http/idempotency.interceptor.js';
import { takesIdempotencyKey } from '../../src/shared/http/idempotency-key.js';
import { registeredRoutes } from '../support/routes.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The idempotency interceptor is put on each operation with `@TakesIdempotencyKey()`, not
 * globally (reads skip Nest's interceptor chain). The operations that carry it must be
 * exactly those that take the key, which the OpenAPI document also declares from
 * `takesIdempotencyKey`: a write that forgot the decorator would document a key it ignores.
 * What the interceptor does on each kind of write: idempotency-keys.e2e-spec.ts.
 */
const t = useTestApp();

const interceptorsOf = (controller: object, handler: object): unknown[] => [
  ...((Reflect.getMetadata(INTERCEPTORS_METADATA, controller) as unknown[] | undefined) ?? []),
  ...((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []),
];

test('every operation that takes an Idempotency-Key has the interceptor, and no other does', () => {
  const routes = registeredRoutes(t).map((route) => ({
    route: `${route.method} ${route.path}`,
    takesKey: takesIdempotencyKey(route.method, route.path),
    intercepted: interceptorsOf(route.controller, route.handler).includes(IdempotencyInterceptor),
  }));
  expect(routes.filter((r) => r.takesKey !== r.intercepted)).toEqual([]);
  // The rule covers the writes of the platform, text and audio, and sandbox surfaces.
  expect(routes.filter((r) => r.takesKey).length).toBeGreaterThanOrEqual(15);
});

test('no read goes through an interceptor', () => {
  const intercepted = registeredRoutes(t)
    .filter((route) => route.method === 'GET' && interceptorsOf(route.controller, route.handler).length > 0)
    .map((route) => route.path);
  expect(intercepted).toEqual([]);
});
