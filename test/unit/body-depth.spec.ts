import { nestsDeeperThan } from '../../src/shared/http/body-depth.js';

/** Builds nesting iteratively: a recursive builder would overflow before the check does. */
function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

describe('nestsDeeperThan', () => {
  it.each([
    ['a scalar', 0, false, 1],
    ['null', 0, false, null],
    ['an empty object', 0, true, {}],
    ['an empty object', 1, false, {}],
    ['3 levels of arrays', 3, false, nested(3, (v) => [v])],
    ['4 levels of arrays', 3, true, nested(4, (v) => [v])],
    ['mixed arrays and objects', 4, false, { a: [{ b: [1] }] }],
    ['mixed arrays and objects', 3, true, { a: [{ b: [1] }] }],
    ['a deep branch beside shallow ones', 8, true, { a: 1, b: [2], c: nested(10, (v) => ({ v })) }],
  ])('%s, limit %d: deeper is %s', (_, max, expected, value) => {
    expect(nestsDeeperThan(value, max)).toBe(expected);
  });

  it('walks a million levels without overflowing the stack', () => {
    expect(nestsDeeperThan(nested(1_000_000, (v) => [v]), 32)).toBe(true);
  });
});
