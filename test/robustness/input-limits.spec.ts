import { inputProblem } from '../../src/shared/http/input-limits.js';

/** Builds nesting iteratively: a recursive builder would overflow before the check does. */
function nested(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

describe('inputProblem', () => {
  it.each([
    ['a scalar', 0, 1],
    ['null', 0, null],
    ['an empty object at limit 1', 1, {}],
    ['3 levels of arrays at limit 3', 3, nested(3, (v) => [v])],
    ['mixed arrays and objects at limit 4', 4, { a: [{ b: [1] }] }],
    ['text with other control characters', 4, { a: 'tab\there\u0001' }],
  ])('accepts %s', (_, max, value) => {
    expect(inputProblem(value, 'body', max)).toBeUndefined();
  });

  it.each([
    ['an empty object at limit 0', 0, {}],
    ['4 levels of arrays at limit 3', 3, nested(4, (v) => [v])],
    ['mixed arrays and objects at limit 3', 3, { a: [{ b: [1] }] }],
    ['a deep branch beside shallow ones', 8, { a: 1, b: [2], c: nested(10, (v) => ({ v })) }],
  ])('finds %s too deep', (_, max, value) => {
    expect(inputProblem(value, 'body', max)).toMatch(/deeper than/);
  });

  it.each([
    [{ plan: 'a\u0000b' }, 'body.plan'],
    [{ events: ['ok', '\u0000'] }, 'body.events[1]'],
    ['\u0000', 'body'],
  ])('names where a NUL character is: %j', (value, path) => {
    expect(inputProblem(value, 'body')).toBe(`${path} contains a NUL character (U+0000), which no field accepts.`);
  });

  it('walks a million levels without overflowing the stack', () => {
    expect(
      inputProblem(
        nested(1_000_000, (v) => [v]),
        'body',
      ),
    ).toMatch(/deeper than 32/);
  });
});
