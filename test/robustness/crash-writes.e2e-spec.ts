import pg from 'pg';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { buildOnce, startService, type ServiceProcess } from '../support/processes.js';
import { bearer, serviceEnvFor, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * SIGKILL during a burst of writes: an acknowledged write must survive a crash. The built service, in a process of its own,
 * takes entitlement POSTs and playback PUTs from several writers and is killed with
 * SIGKILL while requests are in flight; after a restart, every write it acknowledged is
 * there with its value, nothing is duplicated, and the entitlement history is one
 * unbroken chain per record that ends in the record.
 *
 * Each writer owns its keys and writes them one request at a time, so per key the order
 * of writes is known and every write but the writer's last was acknowledged: the last
 * one was on the wire at the kill (or refused after it) and may or may not have committed.
 */
const WRITERS = 6;
const KILL_AFTER_ACKNOWLEDGED = 150;
const NOVEL = 'crash-novel';
const STATUSES = ['active', 'suspended', 'canceled'] as const;

interface Write {
  kind: 'entitlement' | 'playback';
  subscriberId: string;
  /** What the write sets: status and plan, or chapter and position. */
  value: Record<string, unknown>;
  acknowledged: boolean;
}

let t: TestApp;
let a: PartnerClient;
let db: pg.Client;
let service: (ServiceProcess & { origin: string }) | undefined;

const entitled = (writer: number) => `crash-entitled-${writer}`;
const listener = (writer: number) => `crash-listener-${writer}`;

beforeAll(async () => {
  buildOnce();
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 3 })]));
  a = await partnerClient(t);
  for (let writer = 0; writer < WRITERS; writer++) {
    await a.entitle(listener(writer), { product: 'audioapp' });
    const opened = await a.call('POST', `/subscribers/${listener(writer)}/novels`, { novel_id: NOVEL });
    expect(opened.statusCode).toBe(201);
  }
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  // Opened long ago: every chapter is released, so every playback write is valid.
  await db.query(`UPDATE novel_progress SET started_at = now() - interval '10 days' WHERE partner_id = $1`, [a.partnerId]);
}, 120_000);

afterAll(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
  await db?.end();
  await t?.close();
});

/** The service's environment: only the surfaces written to, no delivery worker, no demo catalog. */
const serviceEnv = () => serviceEnvFor(t, { SERVICES: 'platform,reading', WEBHOOK_WORKER: 'false', LOG_LEVEL: 'error' });

/** The n-th write of a writer: entitlement and playback writes alternate, each value differs from the last. */
function nthWrite(writer: number, n: number): Omit<Write, 'acknowledged'> {
  const round = Math.floor(n / 2);
  return n % 2 === 0
    ? { kind: 'entitlement', subscriberId: entitled(writer), value: { status: STATUSES[round % STATUSES.length], plan: `plan-${round}` } }
    : { kind: 'playback', subscriberId: listener(writer), value: { chapter: (round % 3) + 1, position_seconds: round } };
}

function send(origin: string, write: Omit<Write, 'acknowledged'>): Promise<Response> {
  const [method, path, body] =
    write.kind === 'entitlement'
      ? ['POST', '/platform/v1/entitlements', { subscriber_id: write.subscriberId, product: 'textapp', ...write.value }]
      : [
          'PUT',
          `/v1/subscribers/${write.subscriberId}/playback-position`,
          { novel_id: NOVEL, chapter_id: `${NOVEL}-ch${write.value.chapter}`, position_seconds: write.value.position_seconds },
        ];
  return fetch(`${origin}${path}`, { method, headers: { ...bearer(a.token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Writers write until a request fails (the process is gone); returns every write tried, in order per writer. */
async function burstUntilKilled(origin: string, kill: () => void) {
  const writes: Write[][] = Array.from({ length: WRITERS }, () => []);
  let acknowledged = 0;
  let inFlightAtKill = -1;
  let inFlight = 0;
  const writer = async (index: number) => {
    for (let n = 0; ; n++) {
      const write: Write = { ...nthWrite(index, n), acknowledged: false };
      writes[index].push(write);
      inFlight++;
      try {
        const response = await send(origin, write);
        if (response.status !== 200) throw new Error(`${write.kind} write answered ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        write.acknowledged = true;
      } catch (error) {
        if (inFlightAtKill < 0) throw error; // failed before the kill: a bug, not the crash
        return;
      } finally {
        inFlight--;
      }
      if (++acknowledged === KILL_AFTER_ACKNOWLEDGED) {
        inFlightAtKill = inFlight;
        kill();
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, index) => writer(index)));
  return { writes, inFlightAtKill };
}

/** The stored value may be the last acknowledged one, or the one in flight at the kill if it committed. */
function allowedFinalValues(writes: Write[]): Record<string, unknown>[] {
  const lastAcknowledged = writes.findLastIndex((w) => w.acknowledged);
  return writes.slice(Math.max(lastAcknowledged, 0)).map((w) => w.value);
}

test('every acknowledged entitlement and playback write survives SIGKILL mid-burst, with nothing duplicated', async () => {
  service = await startService(serviceEnv());
  const killed = service;
  const { writes, inFlightAtKill } = await burstUntilKilled(killed.origin, () => killed.child.kill('SIGKILL'));
  await killed.exit();
  expect(killed.child.signalCode).toBe('SIGKILL');
  // Killed mid-burst: some writes were on the wire.
  expect(inFlightAtKill).toBeGreaterThan(0);

  service = await startService(serviceEnv());
  const restarted = service;
  const read = async <T>(path: string): Promise<T> => (await fetch(`${restarted.origin}${path}`, { headers: bearer(a.token) })).json() as Promise<T>;

  for (let writer = 0; writer < WRITERS; writer++) {
    const byKind = (kind: Write['kind']) => writes[writer].filter((w) => w.kind === kind);

    // The entitlement, read through the restarted service: one record, with a value it acknowledged or the one in flight.
    const entitlements = byKind('entitlement');
    const status = await read<{ entitlements: { status: string; plan: string }[] }>(`/platform/v1/subscriber/${entitled(writer)}/status`);
    expect(status.entitlements).toHaveLength(1);
    const stored = { status: status.entitlements[0].status, plan: status.entitlements[0].plan };
    expect(allowedFinalValues(entitlements)).toContainEqual(stored);

    // Its history: exactly the acknowledged changes in order (every write changes the plan),
    // plus the one in flight if it committed; each row continues from the one before.
    const { rows: history } = await db.query<{ old_status: string | null; new_status: string; partner_plan: string }>(
      `SELECT old_status, new_status, partner_plan FROM entitlement_history WHERE partner_id = $1 AND subscriber_id = $2 ORDER BY id`,
      [a.partnerId, entitled(writer)],
    );
    const committed = entitlements.slice(0, history.length);
    expect(history.map((row) => ({ status: row.new_status, plan: row.partner_plan }))).toEqual(committed.map((w) => w.value));
    expect(entitlements.filter((w) => w.acknowledged).length).toBeLessThanOrEqual(history.length);
    expect(history.map((row) => row.old_status)).toEqual([null, ...history.slice(0, -1).map((row) => row.new_status)]);
    expect(history.at(-1)).toMatchObject({ new_status: stored.status, partner_plan: stored.plan });

    // The playback position, read through the restarted service.
    const position = await read<{ chapter_id: string; position_seconds: number }>(`/v1/subscribers/${listener(writer)}/playback-position?novel_id=${NOVEL}`);
    const storedPosition = { chapter: Number(/-ch(\d+)$/.exec(position.chapter_id)?.[1]), position_seconds: position.position_seconds };
    expect(allowedFinalValues(byKind('playback'))).toContainEqual(storedPosition);
  }

  // One row per key, whatever the constraints say.
  const duplicates = await db.query(
    `SELECT 'entitlements' AS t, count(*) FROM entitlements WHERE partner_id = $1 GROUP BY subscriber_id, product HAVING count(*) > 1
     UNION ALL
     SELECT 'playback_positions', count(*) FROM playback_positions WHERE partner_id = $1 GROUP BY subscriber_id, novel_id HAVING count(*) > 1`,
    [a.partnerId],
  );
  expect(duplicates.rows).toEqual([]);

  // And the restarted service takes writes again.
  expect((await send(restarted.origin, nthWrite(0, writes[0].length))).status).toBe(200);
}, 120_000);
