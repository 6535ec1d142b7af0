import pg from 'pg';
import { FRAMEWORK_PROBE_PATHS, JSON_PROBE_ANSWER, pageProbeAnswer, PK_SELECT, PROBE_SCHEMA, UPSERT } from '../../bench/probes/answers.js';
import { FrameworkProbeModule } from '../../bench/probes/framework-module.js';
import { bearer, startTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/**
 * The bench's framework probes (docs/performance.md): the service's own application with
 * routes only the bench mounts, behind the same access guard and validation. The service
 * as main.ts builds it has none of them.
 */
const service = useTestApp();
let probes: TestApp;
let token: string;

beforeAll(async () => {
  // The same database, secret and issuer: the service's tokens work on the probes' app.
  // The page probe's size is read when the app is built, as the bench passes it.
  process.env.PROBE_PAGE_BYTES = '4321';
  try {
    probes = await startTestApp({}, service.databaseUrl, undefined, [FrameworkProbeModule]);
  } finally {
    delete process.env.PROBE_PAGE_BYTES;
  }
  token = await service.token(await service.partner());
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${PROBE_SCHEMA}`);
    for (const table of ['rows', 'positions']) {
      await client.query(
        `CREATE TABLE ${PROBE_SCHEMA}.${table} (id integer PRIMARY KEY, novel_id text NOT NULL, chapter_number integer NOT NULL, position_seconds integer NOT NULL, updated_at timestamptz NOT NULL)`,
      );
    }
    await client.query(`INSERT INTO ${PROBE_SCHEMA}.rows VALUES (7, 'novel-7', 8, 90, '2026-11-28T10:00:00Z')`);
  } finally {
    await client.end();
  }
});
afterAll(() => probes?.close());

test('the service without the bench module has no probe route', async () => {
  const response = await service.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.json}`, headers: bearer(token) });
  expect(response.statusCode).toBe(404);
  expect(response.json().error_description).toMatch(/^No endpoint answers/);
});

test('the JSON probe answers the bare probe body only after the guard has verified a token', async () => {
  const refused = await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.json}` });
  expect(refused.statusCode).toBe(401);
  expect(refused.json().error).toBe('invalid_token');

  const answered = await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.json}`, headers: bearer(token) });
  expect(answered.statusCode).toBe(200);
  expect(answered.json()).toEqual(JSON_PROBE_ANSWER);
  // The guard's own marks: the rate budget spent and the answer kept out of caches.
  expect(answered.headers['cache-control']).toBe('no-store');
  expect(answered.headers['x-request-id']).toBeDefined();
});

test('the page probe answers JSON text of the size the bench passed, behind the guard', async () => {
  expect((await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.jsonPage}` })).statusCode).toBe(401);
  const answered = await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.jsonPage}`, headers: bearer(token) });
  expect(answered.statusCode).toBe(200);
  expect(answered.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Buffer.byteLength(answered.body)).toBe(4321);
  expect(answered.body).toBe(pageProbeAnswer(4321));
});

test('the primary-key probe reads the bare probe row by id, behind the guard', async () => {
  const found = await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.pkSelect}/7`, headers: bearer(token) });
  expect(found.statusCode).toBe(200);
  expect(found.json()).toEqual({ novel_id: 'novel-7', chapter_number: 8, position_seconds: 90, updated_at: '2026-11-28T10:00:00.000Z' });
  const missing = await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.pkSelect}/8`, headers: bearer(token) });
  expect(missing.statusCode).toBe(404);
  const anonymous = await probes.inject({ method: 'GET', url: `/${FRAMEWORK_PROBE_PATHS.pkSelect}/7` });
  expect(anonymous.statusCode).toBe(401);
});

test('the upsert probe validates its body with the service pipe and writes the row', async () => {
  const body = { novel_id: 'novel-3', chapter_number: 4, position_seconds: 120 };
  const url = `/${FRAMEWORK_PROBE_PATHS.upsert}/3`;
  const written = await probes.inject({ method: 'PUT', url, headers: { ...bearer(token), 'content-type': 'application/json' }, payload: body });
  expect(written.statusCode).toBe(200);
  expect(written.json()).toEqual({ ...body, updated_at: expect.any(String) });
  const again = await probes.inject({
    method: 'PUT',
    url,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { ...body, position_seconds: 121 },
  });
  expect(again.json().position_seconds).toBe(121);

  const invalid = await probes.inject({
    method: 'PUT',
    url,
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload: { ...body, position_seconds: -1 },
  });
  expect(invalid.statusCode).toBe(400);
  expect(invalid.json().error).toBe('invalid_request');
});

test('the probe statements, sent as the bare probes send them, are prepared once per connection as the service sends its own', async () => {
  // Unnamed, PostgreSQL would parse and plan them at every request: a bare "limit" that
  // costs the database more than the framework probe doing the same work.
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  try {
    await client.query({ ...PK_SELECT, values: [7] });
    await client.query({ ...UPSERT, values: [9, 'novel-9', 1, 5] });
    const { rows } = await client.query('SELECT name, statement FROM pg_prepared_statements ORDER BY name');
    expect(rows).toEqual([
      { name: PK_SELECT.name, statement: PK_SELECT.text },
      { name: UPSERT.name, statement: UPSERT.text },
    ]);
  } finally {
    await client.end();
  }
});
