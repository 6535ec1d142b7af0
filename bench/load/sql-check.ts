import pg from 'pg';
import type { Rotation, Scenario } from '../shared/scenarios.js';
import { sleep, type RunningServer } from '../shared/servers.js';

/** The statements one request of an endpoint runs, per server (from pg_stat_statements). */
export interface SqlComparison {
  key: string;
  requests: number;
  service: StatementUse[];
  baseline: StatementUse[];
  /** Statements run on (almost) every request that only one of the two servers runs. */
  onlyInService: string[];
  onlyInBaseline: string[];
}

export interface StatementUse {
  /** pg_stat_statements' id: equal ids mean the same statement, whatever the literals. */
  queryId: string;
  query: string;
  perRequest: number;
}

const REQUESTS = 100;
/**
 * Below this many calls per request a statement is amortised work: the credential check
 * at most every CREDENTIAL_CACHE_SECONDS and the rate-limit lease every ten seconds per credential
 * (both come up about once per credential in a short sample), webhook polling. The
 * baseline has no rate limiter, so the lease is the one expected service-only statement.
 */
const PER_REQUEST_THRESHOLD = 0.9;

/**
 * Sends the same REQUESTS requests to each server in turn and lists the statements
 * PostgreSQL ran meanwhile, so the report shows whether the baseline really runs the
 * service's SQL (the baseline copies the service's statements; this is how drift shows).
 */
export async function statementsPerRequest(
  url: string,
  scenario: Scenario,
  rotation: Rotation,
  service: RunningServer,
  baseline: RunningServer,
): Promise<SqlComparison> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const serviceUse = await measure(db, service, scenario, rotation);
    const baselineUse = await measure(db, baseline, scenario, rotation);
    const frequent = (uses: StatementUse[]) => new Map(uses.filter((u) => u.perRequest >= PER_REQUEST_THRESHOLD).map((u) => [u.queryId, u.query]));
    const inService = frequent(serviceUse);
    const inBaseline = frequent(baselineUse);
    return {
      key: scenario.key,
      requests: REQUESTS,
      service: serviceUse,
      baseline: baselineUse,
      onlyInService: [...inService].filter(([id]) => !inBaseline.has(id)).map(([, query]) => query),
      onlyInBaseline: [...inBaseline].filter(([id]) => !inService.has(id)).map(([, query]) => query),
    };
  } finally {
    await db.end();
  }
}

async function measure(db: pg.Client, target: RunningServer, scenario: Scenario, rotation: Rotation): Promise<StatementUse[]> {
  // Requests still in flight when the load stopped would otherwise be counted here.
  await sleep(1500);
  await db.query('SELECT pg_stat_statements_reset()');
  for (let i = 0; i < REQUESTS; i++) {
    // Offset from the load's own sequence so that PUTs write positions not written just before.
    const request = scenario.request(1_000_003 + i, rotation);
    const response = await fetch(target.baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body });
    await response.arrayBuffer();
  }
  const { rows } = await db.query<{ queryid: string; query: string; calls: string }>(
    `SELECT queryid::text, query, calls FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND query NOT ILIKE '%pg_stat_statements%'
      ORDER BY calls DESC, query`,
  );
  return rows
    .map((r) => ({ queryId: r.queryid, query: r.query.replace(/\s+/g, ' ').trim(), perRequest: Math.round((Number(r.calls) / REQUESTS) * 100) / 100 }))
    .filter((u) => u.perRequest >= 0.01);
}
