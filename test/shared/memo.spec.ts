import { bounded, byObject, perInstant } from '../../src/shared/memo.js';

describe('memos', () => {
  it('byObject computes once per key object', () => {
    let calls = 0;
    const memo = byObject('test.by-object', (key: { n: number }) => ++calls + key.n);
    const key = { n: 10 };
    expect([memo.get(key), memo.get(key), memo.get({ n: 10 })]).toEqual([11, 11, 12]);
  });

  it('bounded lru keeps the recently used and drops the least recently used', () => {
    const computed: string[] = [];
    const memo = bounded('test.lru', 'lru', 2, (key: string) => (computed.push(key), key.toUpperCase()));
    memo.get('a');
    memo.get('b');
    memo.get('a');
    memo.get('c'); // drops b
    memo.get('a');
    memo.get('b');
    expect(computed).toEqual(['a', 'b', 'c', 'b']);
  });

  it('bounded clear empties itself when full', () => {
    const computed: number[] = [];
    const memo = bounded('test.clear', 'clear', 2, (key: number) => (computed.push(key), key * 2));
    for (const key of [1, 2, 1, 3, 1]) memo.get(key);
    expect(computed).toEqual([1, 2, 3, 1]);
  });

  it("perInstant keeps one instant's values only", () => {
    const computed: string[] = [];
    const memo = perInstant('test.per-instant', (key: string, instant: number) => (computed.push(`${key}@${instant}`), `${key}:${instant}`));
    expect([memo.get('k', 1), memo.get('k', 1), memo.get('k', 2), memo.get('k', 1)]).toEqual(['k:1', 'k:1', 'k:2', 'k:1']);
    expect(computed).toEqual(['k@1', 'k@2', 'k@1']);
  });
});
