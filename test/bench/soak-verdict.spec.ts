import { DEFAULT_RULES, soakVerdict, type MinuteSample, type SoakRun, type TableReading } from '../../bench/soak-verdict.js';

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
function run(shapes: MinuteShape[], webhooks = { emitted: 100, delivered: 100 }): SoakRun {
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

  it('takes the median of minutes 3 to 5 as the baseline, so one stalled minute does not set it', () => {
    const shapes = steady(15).map((shape, i) => (i >= 9 ? { p99: 24 } : shape));
    shapes[3] = { p99: 1217 };
    expect(soakVerdict(run(shapes)).failures).toEqual([expect.stringContaining('(median of minutes 3–5: 20 ms)')]);
  });

  it('fails a p99 that stays more than 15 % above its baseline', () => {
    const shapes = steady(15).map((shape, i) => (i >= 9 ? { p99: 24 } : shape));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.passed).toBe(false);
    expect(verdict.failures).toEqual([
      expect.stringMatching(/^p99 of PUT position drifted: over 23 ms \(median of minutes 3–5: 20 ms\) in minutes 10: 24, 11: 24, 12: 24$/),
    ]);
  });

  it('ignores a p99 within the floor of a few milliseconds', () => {
    const shapes = steady(15, { p99: 4 }).map((shape, i) => (i >= 5 ? { p99: 5.5 } : shape));
    expect(soakVerdict(run(shapes)).passed).toBe(true);
  });

  it('fails RSS that climbs', () => {
    const shapes = steady(15).map((shape, i) => ({ ...shape, rss: 190 + i * 5 }));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.failures).toEqual([
      expect.stringMatching(/^RSS of service drifted: over 235.7 MB \(median of minutes 3–5: 205 MB\) in minutes 11: 240, 12: 245, 13: 250$/),
    ]);
  });

  it('does not judge the p99 of a minute with too few answers', () => {
    const shapes = steady(15, { responses: 15 }).map((shape, i) => (i >= 5 ? { ...shape, p99: 400 } : shape));
    const verdict = soakVerdict(run(shapes));
    expect(verdict.passed).toBe(true);
    expect(verdict.notes).toEqual([`PUT position: fewer than ${DEFAULT_RULES.minResponsesForP99} answers a minute in minutes 3–5: p99 not judged`]);
  });

  it('says so when the run is too short to judge drift', () => {
    const verdict = soakVerdict(run(steady(7, { rss: 400 })));
    expect(verdict.passed).toBe(true);
    expect(verdict.notes).toEqual(['RSS and p99 drift are judged on minutes 3–5 and at least 3 minutes after them (runs of 8 minutes or more)']);
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
