/**
 * How deeply JSON bodies may nest. Every body the service takes is at most two levels
 * deep; 64 KiB of brackets would nest some 32 000 levels, and the validation that walks
 * a body recursively (class-transformer) overflows the stack long before that.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * Whether a parsed JSON value nests deeper than `max` arrays or objects. Iterative, so a
 * hostile body cannot overflow the stack here either.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}
