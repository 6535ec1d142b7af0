import { jest } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { buildOnce, runNode } from '../support/processes.js';
import { serviceEnvFor, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A measurement, not part of the suite (its name matches no test pattern): the figures of
 * docs/privacy.md section 5. Run it alone:
 *   NODE_OPTIONS=--experimental-vm-modules npx jest --testMatch '<rootDir>/test/operations/partner-erase.measure.ts' --testTimeout=1800000
 * A partner with 100 000 live subscribers is seeded in SQL (1.5 million rows with what the
 * triggers write), then another partner's playback and reading-progress reads run from
 * four loops for 30 s alone and again while `partner:erase` runs in a process of its own.
 * Results in /tmp/partner-erase-measure.json.
 */
const NOVEL = 'measure-novel';
const SUBSCRIBERS = 100_000;
let t: TestApp;
let db: DataSource;

jest.setTimeout(1_800_000);

beforeAll(async () => {
  buildOnce();
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  db = t.app.get(DataSource);
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 3 })]), 'live');
});
afterAll(() => t?.close());

async function hotReads(hot: PartnerClient, ids: string[], until: () => boolean, seconds?: number) {
  const latencies: number[] = [];
  const start = Date.now();
  let failures = 0;
  const loop = async (k: number) => {
    for (let i = k; seconds ? Date.now() - start < seconds * 1000 : !until(); i += 4) {
      const id = ids[i % ids.length];
      for (const path of [`/subscribers/${id}/playback-position?novel_id=${NOVEL}`, `/subscriber/${id}/reading-progress`]) {
        const sent = performance.now();
        const response = await hot.call('GET', path);
        latencies.push(performance.now() - sent);
        if (response.statusCode !== 200) failures++;
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(loop));
  latencies.sort((x, y) => x - y);
  const q = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] * 100) / 100;
  return { requests: latencies.length, failures, p50: q(0.5), p99: q(0.99), max: q(1) };
}

test("p99 of another partner's hot reads while a partner with 100 000 subscribers is erased", async () => {
  const hot = await partnerClient(t);
  const ids = Array.from({ length: 20 }, (_, i) => `hot-${i}`);
  for (const id of ids) {
    await hot.entitle(id, { product: 'audioapp' });
    await hot.entitle(id, { product: 'textapp' });
    await hot.call('POST', `/subscribers/${id}/novels`, { novel_id: NOVEL });
    await hot.call('PUT', `/subscribers/${id}/playback-position`, { novel_id: NOVEL, chapter_id: `${NOVEL}-ch1`, position_seconds: 5 });
  }
  const leaving = await partnerClient(t);
  const seedStart = Date.now();
  const p = leaving.partnerId;
  const seedDb = new pg.Client({ connectionString: t.databaseUrl });
  await seedDb.connect();
  await seedDb.query('SET statement_timeout = 0');
  for (let from = 1; from <= SUBSCRIBERS; from += 10_000) {
    const subs = `FROM generate_series(${from}, ${from + 9_999}) g`;
    await seedDb.query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan)
      SELECT $1, 'live', 's' || g, pr, 'active', CASE pr WHEN 'textapp' THEN 'text_standard' ELSE 'audio_standard' END ${subs}, unnest(ARRAY['textapp','audioapp']) pr`,
      [p],
    );
    await seedDb.query(
      `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, new_status, internal_plan, changed_by)
      SELECT $1, 'live', 's' || g, pr, 'active', 'text_standard', 'seed' ${subs}, unnest(ARRAY['textapp','audioapp']) pr`,
      [p],
    );
    await seedDb.query(
      `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at) SELECT $1, 'live', 's' || g, $2, now() - interval '3 days' ${subs}`,
      [p, NOVEL],
    );
    await seedDb.query(
      `INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at) SELECT $1, 'live', 's' || g, $2, 1, 30, now() ${subs}`,
      [p, NOVEL],
    );
    // The rollup trigger writes the per-day rows and their counts from these.
    await seedDb.query(
      `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
      SELECT $1, 'live', 's' || g, $2, c, 'text', date_trunc('month', now()) + ((c - 1) || ' days')::interval ${subs}, generate_series(1, 3) c`,
      [p, NOVEL],
    );
  }
  await seedDb.end();
  const [{ rows }] = await db.query(
    `SELECT (SELECT count(*) FROM entitlements WHERE partner_id=$1) + (SELECT count(*) FROM entitlement_history WHERE partner_id=$1)
     + (SELECT count(*) FROM novel_progress WHERE partner_id=$1) + (SELECT count(*) FROM playback_positions WHERE partner_id=$1)
     + (SELECT count(*) FROM reading_activity WHERE partner_id=$1) + (SELECT count(*) FROM reading_reader_days WHERE partner_id=$1)
     + (SELECT count(*) FROM reading_chapter_days WHERE partner_id=$1) AS rows`,
    [p],
  );
  const seedSeconds = (Date.now() - seedStart) / 1000;
  await db.query('VACUUM ANALYZE');
  const [{ name }] = await db.query('SELECT name FROM partners WHERE id = $1', [p]);

  const baseline = await hotReads(hot, ids, () => false, 30);
  let done = false;
  const eraseStart = Date.now();
  const run = runNode('dist/src/cli.js', ['partner:erase', '--partner', p, '--confirm', name], { ...serviceEnvFor(t), LOG_LEVEL: 'silent' });
  let stdout = '';
  run.child.stdout!.on('data', (chunk) => (stdout += chunk));
  const exited = run.exit().then((code) => {
    done = true;
    return code;
  });
  const during = await hotReads(hot, ids, () => done);
  const code = await exited;
  const eraseSeconds = (Date.now() - eraseStart) / 1000;
  const result = { seedRows: rows, seedSeconds, baseline, during, eraseSeconds, code, report: stdout ? JSON.parse(stdout) : run.output() };
  writeFileSync('/tmp/partner-erase-measure.json', JSON.stringify(result, null, 2));
  expect(code).toBe(0);
});
