/** `n` rounded to `digits` decimals, for the figures a report prints. */
export function round(n: number, digits: number): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}
