// `npm run bench:analytics`: latency of GET /v1/analytics/engagement over millions of
// activity rows. Plain ESM against the built service (the npm script builds first), on a
// database of its own: on DATABASE_URL's server when set, else an embedded PostgreSQL in a
// temporary directory. Nothing of an existing database is touched.
//
// Knobs (environment): BENCH_ROWS activity rows of the measured partner in the measured
// month (default 2 000 000), BENCH_EVENTS_PER_CHAPTER_DAY raw events per (subscriber,
// chapter, day) (default 4: one chapter-text read and three playback-position writes; 1 is
// the worst case, where the daily rollup de-duplicates nothing), BENCH_RUNS (default 30).
import 'reflect-metadata';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createApp } from '../../dist/src/bootstrap/create-app.js';
import { loadConfig } from '../../dist/src/config/app-config.js';
import { createDatabaseIfMissing } from '../../dist/src/database/database-location.js';
import { startEmbeddedPostgres } from '../../dist/src/database/embedded-postgres.js';
import { PartnerCredentialsService } from '../../dist/src/modules/identity/index.js';

const ROWS = positiveInteger('BENCH_ROWS', 2_000_000);
const EVENTS = positiveInteger('BENCH_EVENTS_PER_CHAPTER_DAY', 4);
const RUNS = positiveInteger('BENCH_RUNS', 30);
const SUBSCRIBERS = 40_000;
const NOVELS = 300;
const CHAPTERS = 30;
const BATCH = 250_000;
// The measured month; the month before it and another partner add rows the report must skip.
const MONTH = { start: '2026-10-01', end: '2026-10-31', days: 31 };
const PREVIOUS_MONTH_START = '2026-09-01';

const log = (line) => process.stderr.write(`${line}\n`);

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'prl-bench-'));
  const server = await databaseServer();
  const name = `prl_bench_${Date.now().toString(36)}`;
  await createDatabaseIfMissing(server.adminUrl, name);
  const url = server.urlFor(name);
  log(`database ${name} on ${server.embedded ? 'an embedded PostgreSQL' : "DATABASE_URL's server"}`);
  let app;
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      SERVER_SECRET: 'bench-server-secret-bench-server-secret',
      KEY_ACTIVATION_DELAY_SECONDS: '0',
    });
    app = await createApp(config, url); // applies the migrations
    const credentials = app.get(PartnerCredentialsService);
    const measured = await credentials.createPartner('Benchmark partner', ['textapp:analytics:read']);
    const other = await credentials.createPartner('Other partner', ['textapp:analytics:read']);

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await seedCatalog(db);
      await seedActivity(db, measured.partner_id, MONTH.start, MONTH.days, ROWS);
      await seedActivity(db, measured.partner_id, PREVIOUS_MONTH_START, 30, Math.ceil(ROWS / 10));
      await seedActivity(db, other.partner_id, MONTH.start, MONTH.days, Math.ceil(ROWS / 10));
      await seedProgress(db, measured.partner_id);
      log('VACUUM ANALYZE (what autovacuum does for an insert-only table)…');
      await db.query('VACUUM ANALYZE');
      const sizes = await tableSizes(db);
      const latencies = await measure(app, await tokenFor(app, measured), RUNS);
      const sample = await report(app, await tokenFor(app, measured));
      console.log(
        JSON.stringify(
          {
            activity_rows: sizes.reading_activity,
            reader_day_rows: sizes.reading_reader_days,
            chapter_day_rows: sizes.reading_chapter_days,
            novel_progress_rows: sizes.novel_progress,
            measured_partner_rows_in_period: ROWS,
            events_per_chapter_day: EVENTS,
            period: `${MONTH.start}..${MONTH.end}`,
            runs: RUNS,
            latency_ms: latencies,
            report: { ...sample, ending_distribution: `${sample.ending_distribution.length} rows` },
          },
          null,
          2,
        ),
      );
    } finally {
      await db.end();
    }
  } finally {
    await app?.close();
    await dropDatabase(server.adminUrl, name);
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function databaseServer() {
  if (process.env.DATABASE_URL) {
    const adminUrl = process.env.DATABASE_URL;
    const urlFor = (database) => Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
    return { adminUrl, urlFor, embedded: false, stop: async () => undefined };
  }
  // A DATA_DIR of its own; run as root, the server runs as the `postgres` user, who must enter it.
  const dir = mkdtempSync(join(tmpdir(), 'prl-bench-pg-'));
  chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres(dir);
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { ...server, embedded: true, stop };
}

async function dropDatabase(adminUrl, name) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  await admin.end();
}

async function seedCatalog(db) {
  await db.query(`INSERT INTO categories (environment, id, name, sort_order) VALUES ('live', 'bench', 'Bench', 1)`);
  await db.query(
    `INSERT INTO novels (environment, id, title, category_id, language, status, total_chapters)
     SELECT 'live', 'novel-' || n, 'Novel ' || n, 'bench', 'pt-BR', 'published', $2 FROM generate_series(0, $1 - 1) AS n`,
    [NOVELS, CHAPTERS],
  );
  await db.query(
    `INSERT INTO endings (environment, novel_id, choice_id, label, ending, sort_order)
     SELECT 'live', 'novel-' || n, 'choice-' || c, 'Ending ' || c, 'The end.', c FROM generate_series(0, $1 - 1) AS n, generate_series(1, 3) AS c`,
    [NOVELS],
  );
}

/**
 * `rows` raw events in `days` days from `start`: reading sessions of (subscriber, novel,
 * chapter, day), each of EVENTS events (a text read, then playback writes). Subscriber k's
 * j-th session reads the next chapter of its current novel, on a day spread over the period.
 */
async function seedActivity(db, partnerId, start, days, rows) {
  for (let from = 0; from < rows; from += BATCH) {
    const to = Math.min(rows, from + BATCH);
    await db.query(
      `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
       SELECT $1, 'live', 'sub-' || k, 'novel-' || ((k * 31 + j / $7) % $6), 1 + j % $7,
              CASE WHEN e = 0 THEN 'text' ELSE 'audio' END,
              ($2::date + ((k * 7 + j) % $5)::int + make_interval(hours => (6 + k % 12)::int, mins => (e * 5)::int)) AT TIME ZONE 'UTC'
       FROM generate_series($3::bigint, $4::bigint - 1) AS i,
            LATERAL (SELECT i / $8 AS s, i % $8 AS e) AS session,
            LATERAL (SELECT s % $9 AS k, s / $9 AS j) AS who`,
      [partnerId, start, from, to, days, NOVELS, CHAPTERS, EVENTS, SUBSCRIBERS],
    );
    // Autovacuum would analyze a table growing this fast; without statistics the rollup
    // trigger's lookups cannot tell the key index from the period index.
    await db.query('ANALYZE reading_reader_days, reading_chapter_days');
    log(`  activity ${partnerId.slice(0, 8)} from ${start}: ${to.toLocaleString('en')} / ${rows.toLocaleString('en')} rows`);
  }
}

/** Four novels per subscriber, started over two months; about half finished with a choice. */
async function seedProgress(db, partnerId) {
  log('novel progress…');
  await db.query(
    `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at, current_chapter, finished_at, chosen_choice_id)
     SELECT $1, 'live', 'sub-' || k, 'novel-' || ((k * 31 + n) % $3), started, 1,
            CASE WHEN (k + n) % 2 = 0 THEN started + interval '20 days' END,
            CASE WHEN (k + n) % 2 = 0 THEN 'choice-' || (1 + (k * 7 + n) % 3) END
     FROM generate_series(0, $2 - 1) AS k, generate_series(0, 3) AS n,
          LATERAL (SELECT ($4::date + ((k * 13 + n * 17) % 61) * interval '1 day') AT TIME ZONE 'UTC' AS started) AS s`,
    [partnerId, SUBSCRIBERS, NOVELS, PREVIOUS_MONTH_START],
  );
}

async function tableSizes(db) {
  const { rows } = await db.query(
    `SELECT relname, reltuples::bigint AS rows FROM pg_class
     WHERE relname IN ('reading_activity', 'reading_reader_days', 'reading_chapter_days', 'novel_progress')`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, Number(row.rows)]));
}

async function tokenFor(app, credential) {
  const response = await app.inject({
    method: 'POST',
    url: '/platform/v1/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }).toString(),
  });
  return response.json().access_token;
}

async function report(app, token) {
  const response = await app.inject({
    method: 'GET',
    url: `/v1/analytics/engagement?period_start=${MONTH.start}&period_end=${MONTH.end}`,
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.statusCode !== 200) throw new Error(`report failed: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** Three warm-up calls, then `runs` timed ones through the whole HTTP stack. */
async function measure(app, token, runs) {
  log(`measuring ${runs} reports…`);
  for (let i = 0; i < 3; i++) await report(app, token);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await report(app, token);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q) => Math.round(times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]);
  return { p50: at(0.5), p95: at(0.95), min: Math.round(times[0]), max: Math.round(times.at(-1)) };
}

function positiveInteger(name, fallback) {
  const value = process.env[name] === undefined ? fallback : Number(process.env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

await main();
