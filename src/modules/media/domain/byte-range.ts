/** What to send for a request's `Range` header (RFC 9110 section 14). */
export type ByteRange = { kind: 'whole' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/**
 * One byte range of a file of `size` bytes; `end` is inclusive. A missing or malformed
 * header, or several ranges (which players do not send for audio), get the whole file,
 * as RFC 9110 allows; a well-formed range that starts beyond the end is unsatisfiable.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange {
  const match = header === undefined ? null : SINGLE_RANGE.exec(header);
  if (!match) return { kind: 'whole' };
  const [, first, last] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // "bytes=-N": the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Number(last);
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}
