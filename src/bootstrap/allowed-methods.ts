import type { FastifyInstance } from 'fastify';

/**
 * The methods each registered path answers, so that a known path called with another
 * method gets 405 with `Allow` instead of a 404 that suggests the path does not exist.
 * Only routes `served` accepts count: a surface this process does not mount is answered
 * 404, and its methods must not show through an `Allow`. Must be installed before the
 * routes are registered (it listens to onRoute).
 */
export function trackAllowedMethods(fastify: FastifyInstance, served: (route: string) => boolean): (path: string) => string[] | undefined {
  const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  fastify.addHook('onRoute', (route) => {
    if (!served(route.url)) return;
    const entry = routes.get(route.url) ?? { pattern: patternOf(route.url), methods: new Set<string>() };
    for (const method of [route.method].flat()) entry.methods.add(method);
    routes.set(route.url, entry);
  });
  return (path) => {
    const methods = new Set<string>();
    for (const { pattern, methods: own } of routes.values()) if (pattern.test(path)) own.forEach((m) => methods.add(m));
    return methods.size > 0 ? [...methods].sort() : undefined;
  };
}

/** find-my-way's syntax: `:name` is one segment, `*` the rest; a trailing slash is ignored. */
function patternOf(url: string): RegExp {
  const source = url
    .replace(/\/+$/, '')
    .split(/(:[A-Za-z0-9_]+|\*)/)
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}
