import fc from 'fast-check';
import { parseByteRange } from '../../src/modules/media/domain/byte-range.js';

const size = fc.integer({ min: 1, max: 10_000_000 });

describe('parseByteRange', () => {
  it('gives bytes start to end of a first-last range, clamped to the file', () => {
    fc.assert(
      fc.property(size, fc.nat(20_000_000), fc.nat(20_000_000), (length, a, b) => {
        const [first, last] = a <= b ? [a, b] : [b, a];
        const range = parseByteRange(`bytes=${first}-${last}`, length);
        if (first >= length) expect(range).toEqual({ kind: 'unsatisfiable' });
        else expect(range).toEqual({ kind: 'partial', start: first, end: Math.min(last, length - 1) });
      }),
    );
  });

  it('gives the rest of the file from an open-ended start', () => {
    fc.assert(
      fc.property(size, fc.nat(20_000_000), (length, first) => {
        const range = parseByteRange(`bytes=${first}-`, length);
        expect(range).toEqual(first < length ? { kind: 'partial', start: first, end: length - 1 } : { kind: 'unsatisfiable' });
      }),
    );
  });

  it('gives the last N bytes of a suffix range', () => {
    fc.assert(
      fc.property(size, fc.integer({ min: 1, max: 20_000_000 }), (length, suffix) => {
        expect(parseByteRange(`bytes=-${suffix}`, length)).toEqual({ kind: 'partial', start: Math.max(0, length - suffix), end: length - 1 });
      }),
    );
  });

  it('never answers a slice outside the file, whatever the header', () => {
    fc.assert(
      fc.property(size, fc.oneof(fc.string(), fc.stringMatching(/^bytes=\d{0,9}-\d{0,9}$/)), (length, header) => {
        const range = parseByteRange(header, length);
        if (range.kind === 'partial') {
          expect(range.start).toBeGreaterThanOrEqual(0);
          expect(range.end).toBeGreaterThanOrEqual(range.start);
          expect(range.end).toBeLessThan(length);
        }
      }),
    );
  });

  it.each([
    [undefined, 100],
    ['bytes=5-1', 100],
    ['bytes=-', 100],
    ['bytes=0-1,4-5', 100],
    ['items=0-1', 100],
  ])('sends the whole file for %j (missing, malformed or several ranges)', (header, length) => {
    expect(parseByteRange(header, length)).toEqual({ kind: 'whole' });
  });

  it.each([
    ['bytes=-0', 100],
    ['bytes=0-', 0],
    ['bytes=-5', 0],
  ])('finds %j unsatisfiable for a file of %d bytes', (header, length) => {
    expect(parseByteRange(header, length)).toEqual({ kind: 'unsatisfiable' });
  });
});
