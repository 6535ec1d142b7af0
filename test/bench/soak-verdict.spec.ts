import { soakVerdict, type MinuteSample, type SoakRun, type TableReading } from '../../bench/soak/soak-verdict.js';

/**
 * The soak's pass/fail rules (docs/performance.md, "Soak") on made-up minutes: a steady run
 * passes, one stall passes, a sustained drift, an error or a table growing past its traffic
 * fails.
 */

const table = (name: string, rows: number, changes: Partial<TableReading> = {}): TableReading => ({
  table: name,
  bytes: 8 * 1024 * 1024,
  liveRows: rows,
  deadRows: 0,
  inserted: rows,
  updated: 0,
  deleted: 0,
  ...changes,
});

interface MinuteShape {
  p99?: number;
  p50?: number;
  rss?: number;
  responses?: number;
  unexpected?: number;
  skipped?: number;
  /** Rows added to `activity` this minute. */
  activityRows?: number;
  positionsBytes?: number;
  positionsDead?: number;
}

/** A run of minutes, each 6 000 PUTs (which may add one activity row each) and a steady service. */
function run(shapes: MinuteShape[], webhooks = { emitted: 100, delivered: 100 }, checkpointMinutes = 5): SoakRun {
  let activity = 1_000_000;
  const minutes: MinuteSample[] = shapes.map((shape, i) => {
    activity += shape.activityRows ?? 100;
    return {
      minute: i + 1,
      endpoints: [
        {
          key: 'position-put',
          label: 'PUT position',
          responses: shape.responses ?? 6_000,
          p99Ms: shape.p99 ?? 20,
          p50Ms: shape.p50 ?? 5,
          unexpected: shape.unexpected ?? 0,
          errors: 0,
          skipped: shape.skipped ?? 0,
        },
      ],
      processes: [{ name: 'service', rssMb: shape.rss ?? 190 }],
      tables: [
        table('activity', activity),
        table('positions', 10_000, { updated: 6_000 * (i + 1), deadRows: shape.positionsDead ?? 1_000, bytes: shape.positionsBytes ?? 8 * 1024 * 1024 }),
      ],
      webhooks: { received: 10, badSignatures: 0 },
    };
  });
  return {
    minutes,
    tablesAtStart: [table('activity', 1_000_000), table('positions', 10_000)],
    allowances: [
      { table: 'activity', rowsPerRequest: { 'position-put': 1 } },
      { table: 'positions', rowsPerRequest: {} },
    ],
    webhooks,
    checkpointMinutes,
  };
}

const steady = (n: number, shape: MinuteShape = {}) => Array.from({ length: n }, () => ({ ...shape }));

describe('soak verdict', () => {
  it('passes a steady run', () => {
    const verdict = soakVerdict(run(steady(15)));
    expect(verdict.failures).toEqual([]);
    expect(verdict.passed).toBe(true);
  });

  it('passes one stall, even one that straddles two minutes', () => {
    const shapes = steady(15);
    shapes[7] = { p99: 1217 };
    shapes[8] = { p99: 300 };
    expect(soakVerdict(run(shapes)).passed).toBe(true);
  });

  it('passes a p99 that rises and falls with the checkpoint cycle, whatever the phase of its baseline', () => {
    // As in the soak of 10:16: quiet minutes 3–4, then the first timed checkpoint's writes;
    // against the median of minutes 3–5 (the rule before), minutes 5–7 and 10–12 were over.
    const cycle = [45, 50, 20, 20, 40];
    const shapes = Array.from({ length: 15 }, (_, i) => ({ p99: cycle[i % 5] }));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.failures).toEqual([]);
    // The same minutes, with the p99 of every span judged against minutes 3–7: a cycle that grows fails.
    const growing = shapes.map((shape, i) => (i >= 9 && shape.p99! > 20 ? { p99: shape.p99! * 1.6 } : shape));
    expect(soakVerdict(run(growing)).failures).toEqual([
      expect.stringMatching(/^p99 of PUT position drifted: 34.7 ms in minutes 8–12, over 30.7 ms \(minutes 3–7: 26.7 ms/),
    ]);
  });

  it('leaves the highest two minutes of the baseline span out, so one stalled minute does not set it', () => {
    const shapes = steady(15).map((shape, i) => (i >= 9 ? { p99: 24 } : shape));
    shapes[3] = { p99: 1217 };
    expect(soakVerdict(run(shapes)).failures).toEqual([expect.stringContaining('(minutes 3–7: 20 ms; each the mean of the lowest 3)')]);
  });

  it('fails a p99 that stays more than 15 % above its baseline', () => {
    const shapes = steady(15).map((shape, i) => (i >= 9 ? { p99: 24 } : shape));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.passed).toBe(false);
    expect(verdict.failures).toEqual(['p99 of PUT position drifted: 24 ms in minutes 10–14, over 23 ms (minutes 3–7: 20 ms; each the mean of the lowest 3)']);
  });

  it('ignores a p99 within the floor of a few milliseconds', () => {
    const shapes = steady(15, { p99: 4 }).map((shape, i) => (i >= 5 ? { p99: 5.5 } : shape));
    expect(soakVerdict(run(shapes)).passed).toBe(true);
  });

  it('fails RSS that climbs', () => {
    const shapes = steady(15).map((shape, i) => ({ ...shape, rss: 190 + i * 5 }));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.failures).toEqual(['RSS of service drifted: 240 MB in minutes 10–14, over 235.7 MB (minutes 3–7: 205 MB; each the mean of the lowest 3)']);
  });

  it('judges over spans as long as the checkpoint period', () => {
    const shapes = steady(9).map((shape, i) => (i >= 6 ? { p99: 30 } : shape));
    expect(soakVerdict(run(shapes)).notes).toEqual([
      'RSS and p99 drift are judged over spans of 5 minutes (one checkpoint period): minutes 3–7 against every later span (runs of 12 minutes or more)',
    ]);
    expect(soakVerdict(run(shapes, undefined, 3)).failures).toEqual([
      'p99 of PUT position drifted: 30 ms in minutes 7–9, over 23 ms (minutes 3–5: 20 ms; each the mean of the lowest 1)',
    ]);
  });

  it('judges the p50 instead of the p99 of an endpoint with fewer than 1 000 answers a minute', () => {
    // 120 answers a minute: the p99 is the second slowest request, and one slow request moves it.
    const spikes = steady(15, { responses: 120 }).map((shape, i) => (i >= 7 && i % 2 === 1 ? { ...shape, p99: 90 } : shape));
    expect(soakVerdict(run(spikes)).failures).toEqual([]);
    const slower = steady(15, { responses: 120 }).map((shape, i) => (i >= 7 ? { ...shape, p50: 8 } : shape));
    expect(soakVerdict(run(slower)).failures).toEqual([
      'p50 of PUT position drifted: 8 ms in minutes 8–12, over 7 ms (minutes 3–7: 5 ms; each the mean of the lowest 3)',
    ]);
  });

  it('does not judge the latency of an endpoint with fewer than 100 answers a minute', () => {
    const shapes = steady(15, { responses: 15 }).map((shape, i) => (i >= 5 ? { ...shape, p99: 400, p50: 300 } : shape));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.passed).toBe(true);
    expect(verdict.notes).toEqual(['PUT position: fewer than 100 answers in a minute of minutes 3–7: its latency is not judged']);
  });

  it('says so when the run is too short to judge drift', () => {
    const verdict = soakVerdict(run(steady(11, { rss: 400 })));
    expect(verdict.passed).toBe(true);
    expect(verdict.notes).toEqual([
      'RSS and p99 drift are judged over spans of 5 minutes (one checkpoint period): minutes 3–7 against every later span (runs of 12 minutes or more)',
    ]);
  });

  it('fails a service that falls behind the rate, once warm', () => {
    const warmUp = steady(5);
    warmUp[0] = { skipped: 5_000 };
    expect(soakVerdict(run(warmUp)).passed).toBe(true);
    const later = steady(5);
    later[3] = { skipped: 500 };
    expect(soakVerdict(run(later)).failures).toEqual(['PUT position: 500 requests not sent on time from minute 3 (the service fell behind the rate)']);
  });

  it('fails on any unexpected status', () => {
    const shapes = steady(5);
    shapes[1] = { unexpected: 1 };
    expect(soakVerdict(run(shapes)).failures).toEqual(['minute 2: PUT position: 1 answers with an unexpected status']);
  });

  it('fails a table that gains more rows than the requests explain', () => {
    const shapes = steady(5);
    shapes[2] = { activityRows: 40_000 };
    expect(soakVerdict(run(shapes)).failures).toEqual([expect.stringMatching(/^activity: 40400 rows added, the traffic explains at most 30000/)]);
  });

  it('fails dead rows that autovacuum does not keep down, and an update-only table that grows', () => {
    const shapes = steady(6).map((shape, i) => (i >= 4 ? { positionsDead: 50_000, positionsBytes: 20 * 1024 * 1024 } : shape));
    expect(soakVerdict(run(shapes)).failures).toEqual([
      expect.stringMatching(/^positions: 50000 dead rows at minute 5, autovacuum should keep them under 14050$/),
      expect.stringMatching(/^positions: 20 MB at the end against 8 MB at minute 3/),
    ]);
  });

  it('fails when webhook events do not all arrive', () => {
    expect(soakVerdict(run(steady(5), { emitted: 100, delivered: 99 })).failures).toEqual(['webhooks: 99 of the 100 events emitted reached the receiver']);
  });
});
