import fc from 'fast-check';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { chapterReleaseAt } from '../../src/modules/drip/index.js';
import { ChapterUnlockJob } from '../../src/modules/reading/index.js';
import { DEMO_MP3, importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTwoReplicas } from '../support/replicas.js';
import { bearer } from '../support/test-app.js';

/**
 * DECISIONS 28: sandbox test clocks, through the HTTP API only. Two service instances
 * share one database; deliveries are not attempted (the feed shows what was written).
 */

const NOVEL = 'clock-five';
const SETTINGS = { WEBHOOK_WORKER: 'false' };
const DAY = 24 * 3600 * 1000;
/** Ten days from the real now at 12:00 UTC (09:00 in São Paulo): inside the year a clock may be set. */
const T0 = new Date(Math.floor(Date.now() / DAY) * DAY + 10 * DAY + 12 * 3600 * 1000);
const at = (offsetMs: number) => new Date(T0.getTime() + offsetMs).toISOString();

const replicas = useTwoReplicas(SETTINGS);

beforeAll(async () => {
  await importCatalog(replicas.first, manifest([manifestNovel(NOVEL, { chapters: 5, audio: { file: DEMO_MP3, status: 'ready' } })]), 'sandbox');
});

/** A sandbox partner with an endpoint subscribed to chapter.unlocked, and calls of its platform API. */
async function sandboxPartner(app = replicas.first) {
  const client = await partnerClient(app, { environment: 'sandbox' });
  const platform = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, through = app) =>
    through.inject({ method, url: `/platform/v1${path}`, headers: bearer(client.token), ...(payload && { payload }) });
  const endpoint = await platform('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['chapter.unlocked'] });
  expect(endpoint.statusCode).toBe(201);
  return { client, platform };
}
type Partner = Awaited<ReturnType<typeof sandboxPartner>>;

async function createClock(p: Partner, frozenTime = at(0)): Promise<string> {
  const created = await p.platform('POST', '/test-clocks', { frozen_time: frozenTime, name: 'drip' });
  expect(created.statusCode).toBe(201);
  expect(created.headers.location).toBe(`/platform/v1/test-clocks/${created.json().id}`);
  return created.json().id;
}

let subscribers = 0;
/** A new subscriber attached to the clock, entitled with `plan` and reading NOVEL: all at the clock's time. */
async function clockReader(p: Partner, clockId: string, plan = 'text_standard'): Promise<string> {
  const subscriberId = `clock-reader-${++subscribers}`;
  const attached = await p.platform('PUT', `/test-clocks/${clockId}/subscribers/${subscriberId}`);
  expect(attached.statusCode).toBe(200);
  expect(attached.json().subscribers).toContain(subscriberId);
  await p.client.entitle(subscriberId, { product: plan.startsWith('audio') ? 'audioapp' : 'textapp', plan });
  const opened = await p.client.call('POST', `/subscribers/${subscriberId}/novels`, { novel_id: NOVEL });
  expect(opened.statusCode).toBe(201);
  return subscriberId;
}

const advance = (p: Partner, clockId: string, frozenTime: string, through = replicas.first) =>
  p.platform('POST', `/test-clocks/${clockId}/advance`, { frozen_time: frozenTime }, through);

interface Unlock {
  subscriber: string;
  chapter: number;
  occurred_at: string;
}

async function unlocks(p: Partner): Promise<Unlock[]> {
  const feed = await p.platform('GET', '/events?limit=500');
  expect(feed.statusCode).toBe(200);
  return (feed.json().data as { event: string; occurred_at: string; data: { subscriber_id: string; chapter_number: number } }[])
    .filter((e) => e.event === 'chapter.unlocked')
    .map((e) => ({ subscriber: e.data.subscriber_id, chapter: e.data.chapter_number, occurred_at: e.occurred_at }));
}

/** What DECISIONS 8 and 23 give for a reader who opened at T0: chapters 2..5 at their release instants. */
const expectedUnlocks = (subscriber: string, earlyAccess = false, from = 2): Unlock[] =>
  [2, 3, 4, 5]
    .filter((chapter) => chapter >= from)
    .map((chapter) => ({ subscriber, chapter, occurred_at: chapterReleaseAt({ startedAt: T0, earlyAccess }, chapter).toISOString() }));

const chapterStates = async (client: PartnerClient, subscriberId: string) =>
  (await client.call('GET', `/novels/${NOVEL}/chapters?subscriber_id=${subscriberId}`))
    .json()
    .chapters.map((c: { status: string; unlocks_at?: string }) => [c.status, c.unlocks_at ?? null]);

describe('a subscriber on a test clock', () => {
  it('opens at the clock time, and the drip, unlocks_at, stream checks and events follow the advances', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId, 'audio_standard');
    const release = (chapter: number) => chapterReleaseAt({ startedAt: T0, earlyAccess: false }, chapter).toISOString();

    const progress = await p.client.call('GET', `/subscriber/${reader}/reading-progress`);
    expect(progress.json().novels[0]).toMatchObject({ novel_id: NOVEL, started_at: T0.toISOString(), unlocked_chapters: 1 });
    expect(await chapterStates(p.client, reader)).toEqual([
      ['unlocked', null],
      ['locked', release(2)],
      ['locked', release(3)],
      ['locked', release(4)],
      ['locked', release(5)],
    ]);
    expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/2/content?subscriber_id=${reader}`)).json().error).toBe('chapter_locked');
    expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/2/stream?subscriber_id=${reader}`)).json().error).toBe('chapter_locked');
    const position = { novel_id: NOVEL, chapter_id: `${NOVEL}-ch2`, position_seconds: 5 };
    expect((await p.client.call('PUT', `/subscribers/${reader}/playback-position`, position)).statusCode).toBe(400);

    // One day on: chapter 2 is released, and announced once at its instant.
    const advanced = await advance(p, clockId, at(DAY));
    expect(advanced.statusCode).toBe(200);
    expect(advanced.json()).toMatchObject({ id: clockId, frozen_time: at(DAY), subscribers: [reader] });
    expect(await unlocks(p)).toEqual(expectedUnlocks(reader).slice(0, 1));
    expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/2/content?subscriber_id=${reader}`)).statusCode).toBe(200);
    expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/2/stream?subscriber_id=${reader}`)).statusCode).toBe(200);
    expect((await p.client.call('PUT', `/subscribers/${reader}/playback-position`, position)).statusCode).toBe(200);
    expect((await p.client.call('GET', `/subscribers/${reader}/playback-position?novel_id=${NOVEL}`)).statusCode).toBe(200);
    expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/3/stream?subscriber_id=${reader}`)).json().error).toBe('chapter_locked');

    // A month on in one jump: the rest, in instant order; endings become available.
    expect((await advance(p, clockId, at(30 * DAY))).statusCode).toBe(200);
    expect(await unlocks(p)).toEqual(expectedUnlocks(reader));
    expect((await p.client.call('GET', `/subscriber/${reader}/reading-progress`)).json().novels[0].unlocked_chapters).toBe(5);
    expect((await p.client.call('GET', `/novels/${NOVEL}/choices?subscriber_id=${reader}`)).json().available).toBe(true);
  });

  it('is left alone by the live job, whatever the real time', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId);
    await replicas.first.app.get(ChapterUnlockJob).runOnce(new Date(T0.getTime() + 30 * DAY));
    expect(await unlocks(p)).toEqual([]);
    await advance(p, clockId, at(2 * DAY));
    expect(await unlocks(p)).toEqual(expectedUnlocks(reader).slice(0, 2));
  });

  it('emits the same events in instant order whatever the steps of the advances (property)', async () => {
    // Steps: increasing offsets within 30 days, ending at 30 days.
    const steps = fc.uniqueArray(fc.integer({ min: 1, max: 30 * 24 - 1 }), { maxLength: 8 }).map((hours) => [...hours.sort((a, b) => a - b), 30 * 24]);
    await fc.assert(
      fc.asyncProperty(steps, fc.boolean(), async (hours, earlyAccess) => {
        // A partner per run: one partner's advances have a budget (ADR 0128).
        const p = await sandboxPartner();
        const clockId = await createClock(p);
        const reader = await clockReader(p, clockId, earlyAccess ? 'text_early' : 'text_standard');
        for (const hour of hours) expect((await advance(p, clockId, at(hour * 3600 * 1000))).statusCode).toBe(200);
        const mine = (await unlocks(p)).filter((u) => u.subscriber === reader);
        expect(mine).toEqual(expectedUnlocks(reader, earlyAccess, earlyAccess ? 3 : 2));
        expect((await p.platform('DELETE', `/test-clocks/${clockId}`)).statusCode).toBe(204);
      }),
      { numRuns: 8 },
    );
  });

  it('orders the events of several readers by instant across one advance', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const standard = await clockReader(p, clockId);
    const early = await clockReader(p, clockId, 'text_early');
    await advance(p, clockId, at(10 * DAY));
    const events = await unlocks(p);
    expect(events.map((e) => e.occurred_at)).toEqual(events.map((e) => e.occurred_at).sort());
    expect(events).toHaveLength(7);
    expect(new Set(events)).toEqual(new Set([...expectedUnlocks(standard), ...expectedUnlocks(early, true, 3)]));
  });

  it('applies early access and plan changes at the clock time, and stamps entitlement writes with it', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId);
    expect((await chapterStates(p.client, reader))[1][0]).toBe('locked');
    await p.client.entitle(reader, { plan: 'text_early' });
    // Early access at T0 releases chapter 2 at the start (DECISIONS 8).
    expect((await chapterStates(p.client, reader))[1]).toEqual(['unlocked', null]);

    // The write above happened at T0, days ahead of the real time: a change said to be an
    // hour before it is older than the record (acknowledged, not applied), not refused as
    // "in the future", which it is for the real clock.
    const stale = await p.platform('POST', '/entitlements', { subscriber_id: reader, product: 'textapp', status: 'canceled', effective_at: at(-3600 * 1000) });
    expect(stale.statusCode).toBe(200);
    expect(stale.json()).toEqual({ ok: true, applied: false });

    await advance(p, clockId, at(2 * DAY));
    expect(await unlocks(p)).toEqual(expectedUnlocks(reader, true, 3).slice(0, 2));
  });

  it('choosing an ending finishes the novel at the clock time', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId);
    expect((await p.client.call('POST', `/novels/${NOVEL}/choices`, { subscriber_id: reader, choice_id: 'stay' })).json().error).toBe('endings_not_available');
    await advance(p, clockId, at(5 * DAY));
    expect((await p.client.call('POST', `/novels/${NOVEL}/choices`, { subscriber_id: reader, choice_id: 'stay' })).statusCode).toBe(200);
    const feed = (await p.platform('GET', '/events?limit=500')).json().data as { event: string; occurred_at: string }[];
    expect(feed.find((e) => e.event === 'novel.finished')?.occurred_at).toBe(at(5 * DAY));
  });
});

describe('advancing', () => {
  it('refuses going back and jumps over a year; the same time again changes nothing', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    await clockReader(p, clockId);
    await advance(p, clockId, at(2 * DAY));
    const before = await unlocks(p);
    const back = await advance(p, clockId, at(DAY));
    expect(back.statusCode).toBe(400);
    expect(back.json().error).toBe('invalid_request');
    expect((await advance(p, clockId, at(2 * DAY + 366 * DAY))).statusCode).toBe(400);
    const again = await advance(p, clockId, at(2 * DAY));
    expect(again.statusCode).toBe(200);
    expect(again.json().frozen_time).toBe(at(2 * DAY));
    expect(await unlocks(p)).toEqual(before);
  });

  it('never takes a clock more than a year past the real time, however many advances (no year 10000)', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    // Each step is within a year of the clock's time; the second is past a year of the real time.
    const lastAllowed = new Date(Date.now() + 360 * DAY);
    expect((await advance(p, clockId, lastAllowed.toISOString())).statusCode).toBe(200);
    const beyond = await advance(p, clockId, new Date(lastAllowed.getTime() + 10 * DAY).toISOString());
    expect([beyond.statusCode, beyond.json().error, beyond.json().error_description]).toEqual([
      400,
      'invalid_request',
      expect.stringContaining('within a year of now'),
    ]);
    expect((await p.platform('GET', `/test-clocks/${clockId}`)).json().frozen_time).toBe(lastAllowed.toISOString());
    // An offset that lands in year 10000 in UTC is no RFC 3339 instant to answer with.
    const year10000 = await advance(p, clockId, '9999-12-31T23:00:00-05:00');
    expect([year10000.statusCode, year10000.json().error_description]).toEqual([400, expect.stringContaining('9999-12-31T23:59:59Z')]);
  });

  it('by two replicas at once emits each event once', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const readers = [await clockReader(p, clockId), await clockReader(p, clockId, 'text_early')];
    const answers = await Promise.all([advance(p, clockId, at(10 * DAY), replicas.first), advance(p, clockId, at(10 * DAY), replicas.second)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    const events = await unlocks(p);
    expect(events).toHaveLength(7);
    expect(new Set(events)).toEqual(new Set([...expectedUnlocks(readers[0]), ...expectedUnlocks(readers[1], true, 3)]));
  });

  it('that fails midway writes no event and leaves the clock; the retry emits each event once', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId);
    const db = replicas.first.app.get(DataSource);
    // The third event of the advance fails to be written, as a crash there would leave it.
    await db.query(`
      CREATE FUNCTION fail_chapter_4() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.payload->'data'->>'chapter_number' = '4' THEN RAISE EXCEPTION 'simulated crash'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER fail_chapter_4 BEFORE INSERT ON webhook_events FOR EACH ROW EXECUTE FUNCTION fail_chapter_4();`);
    try {
      expect((await advance(p, clockId, at(10 * DAY))).statusCode).toBe(500);
      expect(await unlocks(p)).toEqual([]);
      expect((await p.platform('GET', `/test-clocks/${clockId}`)).json().frozen_time).toBe(at(0));
    } finally {
      await db.query('DROP TRIGGER fail_chapter_4 ON webhook_events; DROP FUNCTION fail_chapter_4();');
    }
    expect((await advance(p, clockId, at(10 * DAY))).statusCode).toBe(200);
    expect((await advance(p, clockId, at(10 * DAY))).statusCode).toBe(200);
    expect(await unlocks(p)).toEqual(expectedUnlocks(reader));
  });
});

describe('writes racing an advance or the live job', () => {
  /** A second connection that holds row locks in an open transaction, as another replica mid-work would. */
  async function otherReplica() {
    const connection = new pg.Client({ connectionString: replicas.first.databaseUrl });
    await connection.connect();
    await connection.query('BEGIN');
    return {
      query: (sql: string, params: unknown[] = []) => connection.query(sql, params),
      /** Resolves once a statement of the service waits for a lock this connection holds. */
      async blocking() {
        for (;;) {
          // Statistics views are read once per transaction unless the snapshot is dropped.
          await connection.query('SELECT pg_stat_clear_snapshot()');
          const { rows } = await connection.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          if (rows[0].n > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      },
      async commit() {
        await connection.query('COMMIT');
        await connection.end();
      },
    };
  }

  it('a novel opened while an advance is being written starts at the time the advance sets', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = 'clock-reader-racing-advance';
    expect((await p.platform('PUT', `/test-clocks/${clockId}/subscribers/${reader}`)).statusCode).toBe(200);
    await p.client.entitle(reader, { product: 'textapp', plan: 'text_standard' });

    const advancing = await otherReplica();
    await advancing.query('SELECT id FROM test_clocks WHERE id = $1 FOR UPDATE', [clockId]);
    await advancing.query('UPDATE test_clocks SET frozen_time = $2 WHERE id = $1', [clockId, at(DAY)]);
    const opening = p.client.call('POST', `/subscribers/${reader}/novels`, { novel_id: NOVEL });
    await advancing.blocking();
    await advancing.commit();

    expect((await opening).statusCode).toBe(201);
    const progress = await p.client.call('GET', `/subscriber/${reader}/reading-progress`);
    expect(progress.json().novels[0].started_at).toBe(at(DAY));
  });

  it('a plan change does not undo a chapter the job announced meanwhile', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId, 'text_early');
    const release = (chapter: number, earlyAccess: boolean) => chapterReleaseAt({ startedAt: T0, earlyAccess }, chapter).toISOString();
    const scheduleOf = async () => {
      const [row] = await replicas.first.app
        .get(DataSource)
        .query(`SELECT next_chapter AS chapter, next_unlock_at AS at FROM chapter_unlock_schedule WHERE subscriber_id = $1`, [reader]);
      return { chapter: row.chapter, at: row.at.toISOString() };
    };
    expect(await scheduleOf()).toEqual({ chapter: 3, at: release(3, true) });

    // The job has announced chapter 3 and moved the row on to chapter 4, not yet committed.
    const job = await otherReplica();
    await job.query('SELECT 1 FROM chapter_unlock_schedule WHERE subscriber_id = $1 FOR UPDATE', [reader]);
    await job.query('UPDATE chapter_unlock_schedule SET next_chapter = 4, next_unlock_at = $2 WHERE subscriber_id = $1', [reader, release(4, true)]);
    const downgrading = p.platform('POST', '/entitlements', { subscriber_id: reader, product: 'textapp', status: 'active', plan: 'text_standard' });
    await job.blocking();
    await job.commit();

    // Early access lost moves chapter 4 a day later; chapter 3 is not planned (and announced) again.
    expect((await downgrading).statusCode).toBe(200);
    expect(await scheduleOf()).toEqual({ chapter: 4, at: release(4, false) });
  });
});

describe('clocks and their limits', () => {
  it('exist in the sandbox only: a live token is refused with 403 sandbox_only on every call', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const live = await partnerClient(replicas.first, { environment: 'live', partnerId: p.client.partnerId });
    for (const [method, path, payload] of [
      ['POST', '/test-clocks', { frozen_time: at(0) }],
      ['GET', '/test-clocks'],
      ['GET', `/test-clocks/${clockId}`],
      ['PUT', `/test-clocks/${clockId}/subscribers/live-reader`],
      ['POST', `/test-clocks/${clockId}/advance`, { frozen_time: at(DAY) }],
      ['DELETE', `/test-clocks/${clockId}`],
    ] as const) {
      const refused = await replicas.first.inject({ method, url: `/platform/v1${path}`, headers: bearer(live.token), ...(payload && { payload }) });
      expect([method, path, refused.statusCode, refused.json().error]).toEqual([method, path, 403, 'sandbox_only']);
    }
    expect((await p.platform('GET', `/test-clocks/${clockId}`)).json()).toMatchObject({ frozen_time: at(0), subscribers: [] });
  });

  it('refuses a frozen_time more than a year away, and answers the clock and the list', async () => {
    const p = await sandboxPartner();
    expect((await p.platform('POST', '/test-clocks', { frozen_time: new Date(Date.now() + 366 * DAY).toISOString() })).statusCode).toBe(400);
    expect((await p.platform('POST', '/test-clocks', { frozen_time: new Date(Date.now() - 366 * DAY).toISOString() })).statusCode).toBe(400);
    expect((await p.platform('POST', '/test-clocks', {})).json().error).toBe('invalid_request');
    const clockId = await createClock(p);
    expect((await p.platform('GET', `/test-clocks/${clockId}`)).json()).toEqual({
      id: clockId,
      name: 'drip',
      frozen_time: at(0),
      subscribers: [],
      created_at: expect.any(String),
    });
    expect((await p.platform('GET', '/test-clocks')).json().data.map((c: { id: string }) => c.id)).toEqual([clockId]);
  });

  it("are a partner's own: another neither sees nor changes one, and subscriber ids are per partner", async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId);
    const before = (await p.platform('GET', `/test-clocks/${clockId}`)).json();
    const other = await sandboxPartner();
    for (const [method, path, body] of [
      ['GET', `/test-clocks/${clockId}`],
      ['POST', `/test-clocks/${clockId}/advance`, { frozen_time: at(DAY) }],
      ['PUT', `/test-clocks/${clockId}/subscribers/intruder`],
      ['DELETE', `/test-clocks/${clockId}`],
    ] as const) {
      const refused = await other.platform(method, path, body);
      expect([method, path, refused.statusCode, refused.json().error]).toEqual([method, path, 404, 'not_found']);
    }
    expect((await other.platform('GET', '/test-clocks')).json().data).toEqual([]);
    expect((await p.platform('GET', `/test-clocks/${clockId}`)).json()).toEqual(before);
    // The same subscriber id at another partner is another subscriber: it has no data there.
    const otherClock = await createClock(other);
    expect((await other.platform('PUT', `/test-clocks/${otherClock}/subscribers/${reader}`)).statusCode).toBe(200);
  });

  it('allows 10 clocks per partner and 100 subscribers per clock (409 limit_reached)', async () => {
    const p = await sandboxPartner();
    const clocks = await Promise.all(Array.from({ length: 12 }, () => p.platform('POST', '/test-clocks', { frozen_time: at(0) })));
    expect(clocks.map((c) => c.statusCode).sort()).toEqual([...Array(10).fill(201), 409, 409]);
    expect(clocks.find((c) => c.statusCode === 409)!.json().error).toBe('limit_reached');
    const clockId = clocks.find((c) => c.statusCode === 201)!.json().id;
    for (let i = 0; i < 100; i += 1) expect((await p.platform('PUT', `/test-clocks/${clockId}/subscribers/full-${i}`)).statusCode).toBe(200);
    const over = await p.platform('PUT', `/test-clocks/${clockId}/subscribers/full-100`);
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toBe('limit_reached');
  });

  it('attaches only a subscriber without sandbox data, to one clock at most', async () => {
    const p = await sandboxPartner();
    const [one, two] = [await createClock(p), await createClock(p)];
    await p.client.entitle('has-data');
    const refused = await p.platform('PUT', `/test-clocks/${one}/subscribers/has-data`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe('subscriber_has_data');
    expect((await p.platform('PUT', `/test-clocks/${one}/subscribers/fresh`)).statusCode).toBe(200);
    expect((await p.platform('PUT', `/test-clocks/${one}/subscribers/fresh`)).statusCode).toBe(200);
    expect((await p.platform('PUT', `/test-clocks/${two}/subscribers/fresh`)).json().error).toBe('subscriber_has_data');
    expect((await p.platform('PUT', `/test-clocks/${one}/subscribers/${'x'.repeat(300)}`)).statusCode).toBe(400);
  });

  it('deleting a clock deletes its subscribers’ sandbox data in one go, and nothing else', async () => {
    const p = await sandboxPartner();
    const clockId = await createClock(p);
    const reader = await clockReader(p, clockId, 'audio_standard');
    const bystander = 'bystander';
    await p.client.entitle(bystander, { product: 'audioapp', plan: 'audio_standard' });
    await p.client.call('POST', `/subscribers/${bystander}/novels`, { novel_id: NOVEL });
    await advance(p, clockId, at(DAY));
    for (const subscriberId of [reader, bystander]) {
      expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/1/content?subscriber_id=${subscriberId}`)).statusCode).toBe(200);
      expect((await p.client.call('GET', `/novels/${NOVEL}/chapters/1/stream?subscriber_id=${subscriberId}`)).statusCode).toBe(200);
      const position = { novel_id: NOVEL, chapter_id: `${NOVEL}-ch1`, position_seconds: 5 };
      expect((await p.client.call('PUT', `/subscribers/${subscriberId}/playback-position`, position)).statusCode).toBe(200);
    }
    const rowsOf = (subscriberId: string) => subscriberRows(p.client.partnerId, subscriberId);
    const written = await rowsOf(reader);
    for (const table of [
      'entitlements',
      'entitlement_history',
      'novel_progress',
      'chapter_unlock_schedule',
      'playback_positions',
      'reading_activity',
      'stream_url_issues',
    ]) {
      expect([table, written[table] > 0]).toEqual([table, true]);
    }
    const bystanderRows = await rowsOf(bystander);

    expect((await p.platform('DELETE', `/test-clocks/${clockId}`)).statusCode).toBe(204);
    expect(Object.entries(await rowsOf(reader)).filter(([, n]) => n > 0)).toEqual([]);
    expect(await rowsOf(bystander)).toEqual(bystanderRows);
    expect((await p.platform('GET', `/test-clocks/${clockId}`)).statusCode).toBe(404);
    expect((await p.platform('DELETE', `/test-clocks/${clockId}`)).statusCode).toBe(404);
    // A clean slate: the subscriber id can go on a new clock.
    const next = await createClock(p);
    expect((await p.platform('PUT', `/test-clocks/${next}/subscribers/${reader}`)).statusCode).toBe(200);
  });
});

/** How many rows each sandbox subscriber-keyed table (any table with the three key columns, added later or not) holds for the subscriber. */
async function subscriberRows(partnerId: string, subscriberId: string): Promise<Record<string, number>> {
  const db = replicas.first.app.get(DataSource);
  const tables: { table_name: string }[] = await db.query(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name IN ('partner_id', 'environment', 'subscriber_id')
      GROUP BY table_name HAVING count(*) = 3 ORDER BY table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(table_name)} WHERE partner_id = $1 AND environment = 'sandbox' AND subscriber_id = $2`,
      [partnerId, subscriberId],
    );
    counts[table_name] = n;
  }
  return counts;
}
