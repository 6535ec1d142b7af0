import { Agent, request } from 'node:http';
import pg from 'pg';
import { combine, fmt, measureRuns } from '../shared/load.js';
import { DEFAULT_CONNECTIONS } from '../shared/options.js';
import { SCENARIOS, type Rotation, type Scenario } from '../shared/scenarios.js';
import type { RunningServer } from '../shared/servers.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The soak's traffic: every bench scenario, plus choosing an ending (which emits
 * `novel.finished`, so webhooks flow), each at a fixed rate after a 30 s ramp. Requests leave at even
 * intervals whatever the answers do (an open loop: a slow answer does not delay the next
 * request, so queueing shows in the latency instead of hiding in a lower rate).
 * autocannon's `overallRate` is not used: it sends each connection's share of a second at
 * the start of the second, so every scenario bursts at once, once a second, and the p99
 * measures those bursts.
 */

/** The readers the `finish` scenario finishes, one per request: sub-soak-<n>, each with a reading started 40 days ago. */
const FINISHER_PREFIX = 'sub-soak-';

export const FINISH_SCENARIO: Scenario = {
  key: 'finish',
  label: 'POST /v1/novels/{id}/choices',
  request: (i, r) => ({
    method: 'POST',
    path: `/v1/novels/${finisherNovel(r, i)}/choices`,
    headers: { authorization: `Bearer ${r.tokens[i % r.tokens.length]}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subscriber_id: `${FINISHER_PREFIX}${i}`, choice_id: 'stay' }),
  }),
};

const finisherNovel = (r: Rotation, i: number) => r.novelIds[i % r.novelIds.length];

/**
 * Readers for FINISH_SCENARIO's first `count` requests: a text entitlement and a reading
 * started 40 days ago (every chapter released, no ending chosen), so each first choice
 * finishes the novel and emits one event.
 */
export async function seedFinishers(url: string, partnerId: string, novelIds: readonly string[], count: number): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, partner_plan, internal_plan)
       SELECT $1, 'live', $2 || i, 'textapp', 'active', 'text_standard', 'text_standard' FROM generate_series(0, $3 - 1) AS i`,
      [partnerId, FINISHER_PREFIX, count],
    );
    await db.query(
      `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at, current_chapter)
       SELECT $1, 'live', $2 || i, ($4::text[])[1 + i % cardinality($4::text[])], now() - interval '40 days', 1 FROM generate_series(0, $3 - 1) AS i`,
      [partnerId, FINISHER_PREFIX, count, novelIds],
    );
    await db.query('ANALYZE entitlements; ANALYZE novel_progress');
  } finally {
    await db.end();
  }
}

export const SOAK_SCENARIOS: readonly Scenario[] = [...SCENARIOS, FINISH_SCENARIO];

/** Endings chosen per second: a few hundred events a minute for the webhook worker and the receiver. */
export const FINISH_RATE = 2;

export interface SoakRates {
  /** Requests per second by scenario key. */
  perSecond: Record<string, number>;
  /** Each bench scenario's capacity (req/s, alone with the whole machine), measured in this sitting. */
  capacity: Record<string, number>;
}

/** How long each scenario is loaded to measure its capacity: a warm-up, then one measured run. */
export interface CapacityRun {
  warmupSeconds: number;
  durationSeconds: number;
}

/**
 * Each bench scenario's capacity on this machine now: loaded alone like the bench does (its
 * connections, a warm-up, then one measured run). Measured in the soak's own sitting, on the
 * data the soak then runs on: a shared machine's speed moves by a factor of 3 between
 * sittings, so a capacity read from an earlier result can put the soak far above the machine
 * (bench/results/LOG.md, the soak of 13:57).
 */
export async function measureCapacities(service: RunningServer, rotation: Rotation, run: CapacityRun): Promise<Record<string, number>> {
  const capacity: Record<string, number> = {};
  for (const scenario of SCENARIOS) {
    const runs = await measureRuns([service], scenario, rotation, scenario.connections ?? DEFAULT_CONNECTIONS, { ...run, rounds: 1 });
    const figures = combine(runs.get(service)!);
    capacity[scenario.key] = figures.requestsPerSecond;
    log(`soak: capacity of ${scenario.label.padEnd(44)} ${fmt(figures)}`);
  }
  return capacity;
}

/**
 * Fixed rates that use `fraction` of the machine in all: each bench scenario gets an equal
 * share of it, `fraction / n` of its capacity alone (each capacity is measured with the whole
 * machine; half of every endpoint's capacity at once would be n / 2 times the machine).
 * `overrides` (key → req/s) win.
 */
export function soakRates(capacity: Readonly<Record<string, number>>, fraction: number, overrides: Readonly<Record<string, number>>): SoakRates {
  const keys = SCENARIOS.map((s) => s.key).filter((key) => capacity[key] !== undefined);
  const perSecond: Record<string, number> = { [FINISH_SCENARIO.key]: FINISH_RATE };
  for (const key of keys) perSecond[key] = Math.round(((fraction * capacity[key]) / keys.length) * 100) / 100;
  for (const [key, rate] of Object.entries(overrides)) perSecond[key] = rate;
  return { perSecond, capacity: { ...capacity } };
}

/** --rate names scenarios: checked before the set-up, not after minutes of seeding. */
export function checkRateOverrides(overrides: Readonly<Record<string, number>>): void {
  for (const key of Object.keys(overrides)) {
    if (!SOAK_SCENARIOS.some((s) => s.key === key)) throw new Error(`soak: --rate names no scenario "${key}"`);
  }
}

/** What one scenario got in one minute. */
export interface TrafficMinute {
  latenciesMs: number[];
  statuses: Record<string, number>;
  /** Requests with no answer (connection error, reset, timeout). */
  errors: number;
  /** Requests not sent because too many were already in flight. */
  skipped: number;
  /** The first few unexpected answers, for the log. */
  samples: string[];
}

/** An answer later than this counts as an error. */
const TIMEOUT_MS = 30_000;
/** Sockets per scenario; requests beyond them wait in the agent (and that wait is in their latency). */
const SOCKETS = 16;
/** In flight at most this many seconds of a scenario's requests (at least 32): beyond, the service has fallen behind. */
const MAX_BACKLOG_SECONDS = 5;
const TICK_MS = 5;
/** The rates rise linearly from 0 over this long, so a cold service (JIT, pools) is not met with the full load at once. */
export const RAMP_SECONDS = 30;

/**
 * When request k of a scenario at `perSecond` is due, in ms from the start: the requests due
 * by t are perSecond × t² / 2R during the ramp of R seconds, perSecond × (t − R / 2) after it.
 */
function dueAtMs(k: number, perSecond: number): number {
  const seconds = k < (perSecond * RAMP_SECONDS) / 2 ? Math.sqrt((2 * k * RAMP_SECONDS) / perSecond) : k / perSecond + RAMP_SECONDS / 2;
  return seconds * 1000;
}

class Paced {
  sent = 0;
  inFlight = 0;
  minute: TrafficMinute = emptyMinute();
  readonly agent = new Agent({ keepAlive: true, maxSockets: SOCKETS });
  constructor(
    readonly scenario: Scenario,
    readonly perSecond: number,
  ) {}
}

/** Sends every scenario at its rate until stopped; takeMinute() hands over what was answered since the last call. */
export class FixedRateTraffic {
  private readonly paced: Paced[];
  private timer?: NodeJS.Timeout;
  private startedAt = 0;

  constructor(
    private readonly baseUrl: string,
    rates: Readonly<Record<string, number>>,
    private readonly rotation: Rotation,
  ) {
    this.paced = SOAK_SCENARIOS.filter((s) => (rates[s.key] ?? 0) > 0).map((s) => new Paced(s, rates[s.key]));
  }

  start(): void {
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
  }

  /** Scenario key → its minute so far; starts a new minute. */
  takeMinute(): Map<string, TrafficMinute> {
    return new Map(
      this.paced.map((p) => {
        const minute = p.minute;
        p.minute = emptyMinute();
        return [p.scenario.key, minute];
      }),
    );
  }

  /** Stops sending and waits (up to the timeout) for the answers in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    const deadline = Date.now() + TIMEOUT_MS;
    while (this.paced.some((p) => p.inFlight > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const p of this.paced) p.agent.destroy();
  }

  private tick(): void {
    const elapsedMs = performance.now() - this.startedAt;
    for (const p of this.paced) {
      const maxInFlight = Math.max(32, p.perSecond * MAX_BACKLOG_SECONDS);
      for (let dueMs = dueAtMs(p.sent, p.perSecond); dueMs <= elapsedMs; dueMs = dueAtMs(p.sent, p.perSecond)) {
        const i = p.sent++;
        if (p.inFlight >= maxInFlight) p.minute.skipped += 1;
        // Latency counts from when the request was due, not from when the timer got to it.
        else this.send(p, i, this.startedAt + dueMs);
      }
    }
  }

  private send(p: Paced, i: number, dueAt: number): void {
    const { method, path, headers, body } = p.scenario.request(i, this.rotation);
    p.inFlight += 1;
    let done = false;
    const finish = (status: number | null, detail?: string) => {
      if (done) return;
      done = true;
      p.inFlight -= 1;
      // The minute the answer arrives in.
      const minute = p.minute;
      if (status === null) minute.errors += 1;
      else {
        minute.latenciesMs.push(performance.now() - dueAt);
        minute.statuses[status] = (minute.statuses[status] ?? 0) + 1;
      }
      if ((status === null || status < 200 || status >= 300) && minute.samples.length < 3)
        minute.samples.push(`${method} ${path}: ${status ?? 'no answer'} ${detail ?? ''}`);
    };
    const outgoing = request(`${this.baseUrl}${path}`, { method, headers, agent: p.agent, timeout: TIMEOUT_MS }, (response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => status >= 300 && chunks.push(chunk));
      response.on('end', () => finish(status, Buffer.concat(chunks).toString('utf8').slice(0, 200)));
      response.on('error', (error) => finish(null, error.message));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', (error) => finish(null, error.message));
    outgoing.end(body);
  }
}

const emptyMinute = (): TrafficMinute => ({ latenciesMs: [], statuses: {}, errors: 0, skipped: 0, samples: [] });
