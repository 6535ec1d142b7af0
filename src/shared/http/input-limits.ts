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
  const pending: [unknown, string, number][] = [[value, where, 0]];
  while (pending.length > 0) {
    const [current, path, depth] = pending.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return `${path} contains a NUL character (U+0000), which no field accepts.`;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return `The ${where} nests arrays or objects deeper than ${maxDepth} levels.`;
    for (const [key, child] of Object.entries(current)) pending.push([child, Array.isArray(current) ? `${path}[${key}]` : `${path}.${key}`, depth + 1]);
  }
  return undefined;
}
