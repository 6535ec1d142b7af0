import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { StreamAuditRepository } from '../../src/modules/media/domain/stream-audit.repository.js';
import { demoDurationSeconds } from '../../src/modules/media/demo/demo-narration.js';
import { importCatalog, manifest } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { CATALOG_TABLES, statementsDuring } from '../fixtures/query-counter.js';
import { bearer, useTestApp } from '../support/test-app.js';
import { daysAgo, demoMp3, demoMp3Bytes, narratedNovel, pathOf, reader } from './audio-fixtures.js';

const t = useTestApp();
let db: DataSource;
let a: PartnerClient;

beforeAll(async () => {
  db = t.app.get(DataSource);
  await importCatalog(
    t,
    manifest([
      narratedNovel(
        'narrated',
        [1, 2, 3, 4, 5].map((n) => ({ file: demoMp3('the-heir', n), status: 'ready' })),
      ),
      narratedNovel('unrendered', [{ file: demoMp3('letters-from-paraty', 1) }, undefined, { status: 'rendering' }, { status: 'failed' }]),
      narratedNovel('gone', [{ file: demoMp3('the-heir', 1) }]),
    ]),
  );
  await importCatalog(t, manifest([narratedNovel('gone', [{ file: demoMp3('the-heir', 1) }], { status: 'removed' })]));
  a = await partnerClient(t);
  // Every chapter released: opened a month ago.
  await reader(t, a, 'listener', 'narrated', { startedAt: daysAgo(30) });
  await reader(t, a, 'listener', 'unrendered', { startedAt: daysAgo(30) });
  // Chapter 1 released, the others locked: opened now.
  await reader(t, a, 'newcomer', 'narrated');
  await reader(t, a, 'newcomer', 'unrendered');
  await reader(t, a, 'reader-only', 'narrated', { product: 'textapp', startedAt: daysAgo(30) });
  await reader(t, a, 'early-reader', 'narrated', { product: 'textapp', plan: 'text_early', startedAt: daysAgo(30) });
  await reader(t, a, 'suspended', 'narrated', { startedAt: daysAgo(30) });
  await a.entitle('suspended', { product: 'audioapp', status: 'suspended' });
  await a.entitle('stranger', { product: 'audioapp' });
});
afterEach(() => jest.restoreAllMocks());

const stream = (novel: string, chapter: number | string, subscriber = 'listener', client = a) =>
  client.call('GET', `/novels/${novel}/chapters/${chapter}/stream?subscriber_id=${subscriber}`);

function expectError(response: Awaited<ReturnType<PartnerClient['call']>>, status: number, error: string) {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: expect.any(String) } });
}

const auditRows = (partnerId: string) =>
  db.query(
    `SELECT environment, client_id, subscriber_id, novel_id, chapter_number, issued_at, expires_at
       FROM stream_url_issues WHERE partner_id = $1 ORDER BY id`,
    [partnerId],
  );

describe('GET /novels/{id}/chapters/{chapterNumber}/stream', () => {
  it('answers exactly stream_url, expires_in 1200, format mp3 and the duration read from the file', async () => {
    const response = await stream('narrated', 2);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      stream_url: expect.stringMatching(/^http:\/\/localhost:3000\/media\/live\/narrated\/2-[0-9a-f]{16}\.mp3\?expires=\d+&signature=[\w-]{43}$/),
      expires_in: 1200,
      format: 'mp3',
      duration_seconds: demoDurationSeconds({ novelId: 'the-heir', chapterNumber: 2 }),
    });
  });

  it('gives a URL that returns the exact bytes of the imported file, and a Range of it as 206', async () => {
    const url = pathOf((await stream('narrated', 3)).json().stream_url);
    const file = demoMp3Bytes('the-heir', 3);
    const whole = await t.inject({ method: 'GET', url });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/mpeg');
    expect(whole.rawPayload.equals(file)).toBe(true);

    const part = await t.inject({ method: 'GET', url, headers: { range: 'bytes=1000-4999' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-4999/${file.length}`);
    expect(part.rawPayload.equals(file.subarray(1000, 5000))).toBe(true);
  });

  it('writes one audit row per issued URL: partner, client, subscriber, novel, chapter, issue and expiry', async () => {
    const client = await partnerClient(t, { partnerId: a.partnerId, scopes: ['audioapp:audio:read'] });
    const urls: URL[] = [];
    for (const chapter of [1, 1, 4]) urls.push(new URL((await stream('narrated', chapter, 'listener', client)).json().stream_url));
    await stream('narrated', 2, 'newcomer', client); // refused: writes nothing

    const rows = (await auditRows(a.partnerId)).filter((row: { client_id: string }) => row.client_id === client.clientId);
    expect(rows).toEqual(
      [1, 1, 4].map((chapter, i) => ({
        environment: 'live',
        client_id: client.clientId,
        subscriber_id: 'listener',
        novel_id: 'narrated',
        chapter_number: chapter,
        issued_at: expect.any(Date),
        expires_at: new Date(Number(urls[i].searchParams.get('expires')) * 1000),
      })),
    );
    for (const row of rows) expect(row.expires_at.getTime() - row.issued_at.getTime()).toBe(1_200_000);
  });

  it('returns no URL when the audit row cannot be written', async () => {
    const before = (await auditRows(a.partnerId)).length;
    jest.spyOn(t.app.get(StreamAuditRepository), 'appendAll').mockRejectedValueOnce(new Error('audit log unreachable'));
    const response = await stream('narrated', 1);
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('stream_url');
    expect(response.body).not.toContain('/media/');
    expect(await auditRows(a.partnerId)).toHaveLength(before);
  });

  describe('refusals, in the contract order of checking', () => {
    it.each([
      ['a text plan', 'reader-only'],
      ['a text plan with early access', 'early-reader'],
      ['a suspended audio entitlement', 'suspended'],
      ['no entitlement at all', 'nobody'],
    ])('403 plan_without_audio for a subscriber with %s', async (_, subscriber) => {
      expectError(await stream('narrated', 1, subscriber), 403, 'plan_without_audio');
    });

    it('403 chapter_locked for a chapter the drip has not released yet', async () => {
      const response = await stream('narrated', 2, 'newcomer');
      expectError(response, 403, 'chapter_locked');
      expect(response.json().error_description).toMatch(/not yet released for this subscriber; it is expected at \d{4}-/);
      expect((await stream('narrated', 1, 'newcomer')).statusCode).toBe(200);
    });

    it('403 chapter_locked for a novel the subscriber has not opened', async () => {
      const response = await stream('narrated', 1, 'stranger');
      expectError(response, 403, 'chapter_locked');
      expect(response.json().error_description).toMatch(/has not opened the novel/);
    });

    it.each([
      [2, 'pending'],
      [3, 'rendering'],
      [4, 'failed'],
    ])('404 audio_not_ready for a released chapter %i whose audio is %s', async (chapter, status) => {
      const response = await stream('unrendered', chapter);
      expectError(response, 404, 'audio_not_ready');
      expect(response.json().error_description).toContain(`audio_status: ${status}`);
      expect((await stream('unrendered', 1)).statusCode).toBe(200);
    });

    it('403, not 404, for a chapter both locked and not rendered', async () => {
      expectError(await stream('unrendered', 2, 'newcomer'), 403, 'chapter_locked');
      expectError(await stream('unrendered', 3, 'newcomer'), 403, 'chapter_locked');
      // The plan comes first of all.
      expectError(await stream('unrendered', 3, 'reader-only'), 403, 'plan_without_audio');
    });

    it('404 invalid_request for an unknown or removed novel', async () => {
      for (const path of ['no-such-novel/chapters/1', 'gone/chapters/1']) {
        const response = await a.call('GET', `/novels/${path}/stream?subscriber_id=listener`);
        expectError(response, 404, 'invalid_request');
        expect(response.json().error_description).toMatch(/does not exist or was removed/);
      }
    });

    it('404 not_found for a chapter beyond the novel', async () => {
      const response = await stream('narrated', 6);
      expectError(response, 404, 'not_found');
      expect(response.json().error_description).toBe('Novel "narrated" has no chapter 6: it has 5.');
    });

    it.each(['0', 'abc', '-1', '1.5', '1e2', '99999999999'])('400 invalid_request for chapter number %s', async (chapter) => {
      const response = await stream('narrated', chapter);
      expectError(response, 400, 'invalid_request');
      expect(response.json().error_description).toBe('chapter number must be an integer from 1 to 100000.');
    });

    it('400 invalid_request for a missing or malformed subscriber_id, or an unknown parameter', async () => {
      expectError(await a.call('GET', '/novels/narrated/chapters/1/stream'), 400, 'invalid_request');
      expect((await a.call('GET', '/novels/narrated/chapters/1/stream')).json().error_description).toMatch(/subscriber_id is required/);
      expectError(await stream('narrated', 1, 'bad%20id'), 400, 'invalid_request');
      expectError(await a.call('GET', '/novels/narrated/chapters/1/stream?subscriber_id=listener&voice=x'), 400, 'invalid_request');
    });

    it('403 insufficient_scope without audioapp:audio:read, and 401 without a token', async () => {
      const textOnly = await partnerClient(t, { partnerId: a.partnerId, scopes: ['textapp:catalog:read', 'textapp:content:read', 'audioapp:playback:read'] });
      expectError(await stream('narrated', 1, 'listener', textOnly), 403, 'insufficient_scope');
      expect((await t.inject({ method: 'GET', url: '/v1/novels/narrated/chapters/1/stream?subscriber_id=listener' })).statusCode).toBe(401);
      const audioOnly = await partnerClient(t, { partnerId: a.partnerId, scopes: ['audioapp:audio:read'] });
      expect((await stream('narrated', 1, 'listener', audioOnly)).statusCode).toBe(200);
    });

    it("keeps partners apart: another partner's subscriber of the same id has no entitlement", async () => {
      const b = await partnerClient(t);
      expectError(await stream('narrated', 1, 'listener', b), 403, 'plan_without_audio');
    });
  });

  it('runs two statements for a URL: the progress with the features, the audit row (the chapter comes from memory)', async () => {
    // A rate-limit lease may fall due during the request; it is not the endpoint's work.
    const statements = (await statementsDuring(t, () => stream('narrated', 1))).filter((sql) => !/rate_limit_buckets/.test(sql));
    expect(statements).toHaveLength(2);
    expect(statements.filter((sql) => CATALOG_TABLES.test(sql))).toEqual([]);
    expect(statements[0]).toMatch(/FROM entitlements[\s\S]*JOIN novel_progress/);
    // Never the chapter's text: it can be large, and the stream does not need it.
    expect(statements.join('\n')).not.toMatch(/\bbody\b/);
    expect(statements.at(-1)).toMatch(/^INSERT INTO stream_url_issues/);
  });

  it('writes the audit rows of concurrent requests together, every row before its URL is answered', async () => {
    const before = Number((await db.query(`SELECT count(*) FROM stream_url_issues`))[0].count);
    let answers: Awaited<ReturnType<typeof stream>>[] = [];
    const statements = await statementsDuring(t, async () => {
      answers = await Promise.all(Array.from({ length: 30 }, () => stream('narrated', 1)));
    });
    expect(answers.every((response) => response.statusCode === 200)).toBe(true);
    const inserts = statements.filter((sql) => /^INSERT INTO stream_url_issues/.test(sql));
    expect(inserts.length).toBeLessThan(30);
    expect(Number((await db.query(`SELECT count(*) FROM stream_url_issues`))[0].count) - before).toBe(30);
  });
});

describe('sandbox and live', () => {
  let sandbox: PartnerClient;

  beforeAll(async () => {
    sandbox = await partnerClient(t, { partnerId: a.partnerId, environment: 'sandbox' });
  });

  it('streams the demo catalog end to end on the sandbox: open with a past started_at, stream, fetch real mp3 bytes', async () => {
    await reader(t, sandbox, 'demo-listener', 'the-heir', { startedAt: daysAgo(10) });
    for (const chapter of [1, 5]) {
      const response = await stream('the-heir', chapter, 'demo-listener', sandbox);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        expires_in: 1200,
        format: 'mp3',
        duration_seconds: demoDurationSeconds({ novelId: 'the-heir', chapterNumber: chapter }),
      });
      const url = new URL(response.json().stream_url);
      expect(url.pathname).toMatch(new RegExp(`^/media/sandbox/the-heir/${chapter}-[0-9a-f]{16}\\.mp3$`));
      const audio = await t.inject({ method: 'GET', url: pathOf(url.href) });
      expect(audio.statusCode).toBe(200);
      expect(audio.rawPayload.equals(demoMp3Bytes('the-heir', chapter))).toBe(true);
    }
    const rows = (await auditRows(a.partnerId)).filter((row: { environment: string }) => row.environment === 'sandbox');
    expect(rows.map((row: { subscriber_id: string; chapter_number: number }) => [row.subscriber_id, row.chapter_number])).toEqual([
      ['demo-listener', 1],
      ['demo-listener', 5],
    ]);
  });

  it('keeps data apart: live catalog, entitlements and progress do not exist on the sandbox, nor the reverse', async () => {
    // The live listener is entitled and reading on live only.
    expectError(await stream('narrated', 1, 'listener', sandbox), 404, 'invalid_request');
    expectError(await stream('the-heir', 1, 'demo-listener', a), 404, 'invalid_request');
    expectError(await stream('the-heir', 1, 'listener', sandbox), 403, 'plan_without_audio');
  });

  it('refuses a sandbox token on /v1 and a live token on /sandbox/v1 with 401', async () => {
    const path = '/novels/the-heir/chapters/1/stream?subscriber_id=demo-listener';
    expect((await t.inject({ method: 'GET', url: `/v1${path}`, headers: bearer(sandbox.token) })).statusCode).toBe(401);
    expect((await t.inject({ method: 'GET', url: `/sandbox/v1${path}`, headers: bearer(a.token) })).statusCode).toBe(401);
  });
});
