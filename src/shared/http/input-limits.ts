/**
 * How deeply JSON bodies may nest. Every body the service takes is at most two levels
 * deep; 64 KiB of brackets would nest some 32 000 levels, and the validation that walks
 * a body recursively (class-transformer) overflows the stack long before that.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * What makes a parsed body or query string unusable whatever the endpoint, found before
 * any validation or query runs: nesting deeper than MAX_BODY_DEPTH, or a NUL character,
 * which PostgreSQL cannot store in text (a query carrying one fails). Iterative, so a
 * hostile body cannot overflow the stack here either. Returns a description, or undefined.
 */
export function inputProblem(value: unknown, where: 'body' | 'query', maxDepth = MAX_BODY_DEPTH): string | undefined {
  const pending: Visit[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const visit = pending.pop()!;
    const current = visit.value;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return `${pathOf(visit, where)} contains a NUL character (U+0000), which no field accepts.`;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (visit.depth + 1 > maxDepth) return `The ${where} nests arrays or objects deeper than ${maxDepth} levels.`;
    const indexed = Array.isArray(current);
    for (const key in current) {
      if (Object.hasOwn(current, key)) pending.push({ value: (current as Record<string, unknown>)[key], depth: visit.depth + 1, parent: visit, key, indexed });
    }
  }
  return undefined;
}

/** A value met on the walk; its path is spelt out only for the description of a problem. */
interface Visit {
  value: unknown;
  depth: number;
  parent?: Visit;
  key?: string;
  indexed?: boolean;
}

function pathOf(visit: Visit, where: string): string {
  if (!visit.parent) return where;
  const parent = pathOf(visit.parent, where);
  return visit.indexed ? `${parent}[${visit.key}]` : `${parent}.${visit.key}`;
}
