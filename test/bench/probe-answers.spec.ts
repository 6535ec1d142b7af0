import { pageProbeAnswer, probePageBytes } from '../../bench/probes/answers.js';

/** The json-page probes' answer: JSON text of exactly the size the bench measured (bench/probes/answers.ts). */

test('the page answer is valid JSON of exactly the bytes asked', () => {
  for (const bytes of [11, 12, 60, 12_454]) {
    const answer = pageProbeAnswer(bytes);
    expect(Buffer.byteLength(answer)).toBe(bytes);
    expect(() => JSON.parse(answer)).not.toThrow();
  }
});

test('a page answer smaller than its JSON frame, or not whole bytes, is refused', () => {
  expect(() => pageProbeAnswer(10)).toThrow(/at least 11/);
  expect(() => pageProbeAnswer(12.5)).toThrow();
});

test('the probes take the measured size from PROBE_PAGE_BYTES, and start on no default', () => {
  expect(probePageBytes({ PROBE_PAGE_BYTES: '12454' })).toBe(12_454);
  expect(() => probePageBytes({})).toThrow(/PROBE_PAGE_BYTES.*required \(got nothing\)/);
  for (const wrong of ['', 'abc', '3', '12.5']) expect(() => probePageBytes({ PROBE_PAGE_BYTES: wrong })).toThrow(/PROBE_PAGE_BYTES/);
});
