// The bare baseline of `npm run bench`: Fastify and pg, no Nest, no validation library, no
// ORM. It answers the hot endpoints with the statements the service runs (./sql.ts), in
// the same order and grouping (what the service runs in parallel, this runs in parallel),
// so the distance between the two is the cost of everything around the SQL.
//
// Env: DATABASE_URL, PORT, SERVER_SECRET and PUBLIC_BASE_URL (the service's, so that it
// accepts the service's tokens and signs the same stream URLs).
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { mediaUrlSigner, Tokens, type Principal } from './auth.js';
import { chapterRelease, releaseCutoff, releasedChapterCount, type Progress } from './drip.js';
import * as sql from './sql.js';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`baseline: ${name} is required`);
  return value;
};

const publicBaseUrl = env('PUBLIC_BASE_URL');
const serverSecret = env('SERVER_SECRET');
// The service's pool size (src/database/data-source-options.ts).
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 20 });
const tokens = new Tokens(pool, serverSecret, publicBaseUrl);
await tokens.loadKeys();
const signMediaUrl = mediaUrlSigner(serverSecret);
const STREAM_URL_TTL_SECONDS = 1200;

const SUBSCRIBER_ID = /^[A-Za-z0-9._:@-]{1,128}$/;
const NOVEL_ID = /^(?=.{1,100}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

class Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
  ) {
    super(description);
  }
}
const invalid = (description: string) => new Failure(400, 'invalid_request', description);

const app = Fastify({ logger: false });

app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
  if (error instanceof Failure) return reply.status(error.status).send({ error: error.code, error_description: error.message });
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
  return reply.status(status).send({ error: status === 500 ? 'server_error' : 'invalid_request', error_description: error.message });
});
app.setNotFoundHandler((request, reply) =>
  reply.status(404).send({ error: 'not_found', error_description: `No endpoint answers ${request.method} ${request.url.split('?')[0]}.` }),
);

app.get('/health/live', async () => ({ status: 'ok' }));

/** The access check of every protected route: a cached token lookup and the scopes. */
async function authorize(request: FastifyRequest, ...anyOf: string[]): Promise<Principal> {
  const principal = await tokens.principal(request.headers.authorization);
  if (!principal || principal.environment !== 'live') throw new Failure(401, 'invalid_token', 'The access token is missing, invalid or expired.');
  if (anyOf.length > 0 && !anyOf.some((scope) => principal.scopes.has(scope)))
    throw new Failure(403, 'insufficient_scope', `The token needs one of: ${anyOf.join(', ')}.`);
  return principal;
}

function onlyParameters(query: Record<string, string>, allowed: readonly string[]): void {
  for (const name of Object.keys(query)) if (!allowed.includes(name)) throw invalid(`property ${name} should not exist`);
}

function subscriberId(value: unknown, name = 'subscriber id'): string {
  if (typeof value !== 'string' || !SUBSCRIBER_ID.test(value)) throw invalid(`${name} must be 1 to 128 characters of A-Z a-z 0-9 . _ : @ -.`);
  return value;
}

function novelId(value: unknown, name = 'novel id'): string {
  if (typeof value !== 'string' || !NOVEL_ID.test(value)) throw invalid(`${name} must be a lowercase slug.`);
  return value;
}

type Row = Record<string, unknown>;
const query = async (text: string, values: unknown[]): Promise<Row[]> => (await pool.query(text, values)).rows;
/** A named statement, as the service sends its hot statements (ADR 0123). */
const prepared = async (statement: { name: string; text: string }, values: unknown[]): Promise<Row[]> => (await pool.query({ ...statement, values })).rows;

interface Novel {
  id: string;
  title: string;
  totalChapters: number;
  entry: Record<string, unknown>;
}

interface Chapter {
  number: number;
  title: string;
  durationSeconds: number | null;
  audioStatus: string;
  audioKey: string | null;
  audioDurationSeconds: number | null;
}

/** The live catalog in memory, as the service's snapshot (ADR 0123); the bench never changes it while it runs. */
const catalog = await (async () => {
  const [categoryRows, novelRows, chapterRows, endingRows] = await Promise.all([
    query(sql.CATALOG_CATEGORIES, ['live']),
    query(sql.CATALOG_NOVELS, ['live']),
    query(sql.CATALOG_CHAPTERS, ['live']),
    query(sql.CATALOG_ENDING_LABELS, ['live']),
  ]);
  const novels: Novel[] = novelRows.map((r) => ({
    id: r.id as string,
    title: r.title as string,
    totalChapters: r.total_chapters as number,
    entry: { ...r, updated_at: (r.updated_at as Date).toISOString() },
  }));
  const chapters = new Map<string, Chapter[]>();
  for (const r of chapterRows) {
    const list = chapters.get(r.novel_id as string) ?? [];
    list.push({
      number: r.number as number,
      title: r.title as string,
      durationSeconds: r.duration_seconds as number | null,
      audioStatus: r.audio_status as string,
      audioKey: r.audio_key as string | null,
      audioDurationSeconds: r.audio_duration_seconds as number | null,
    });
    chapters.set(r.novel_id as string, list);
  }
  const endingLabels = new Map<string, Map<string, { label: string; position: number }>>();
  for (const [position, r] of endingRows.entries()) {
    const novel = endingLabels.get(r.novelId as string) ?? new Map();
    novel.set(r.choiceId as string, { label: r.label as string, position });
    endingLabels.set(r.novelId as string, novel);
  }
  return {
    categories: categoryRows.map((r) => ({ id: r.id, name: r.name, sort_order: r.sortOrder })),
    novels,
    novelsById: new Map(novels.map((n) => [n.id, n])),
    chapters,
    endingLabels,
  };
})();

function publishedNovel(id: string): Novel {
  const novel = catalog.novelsById.get(id);
  if (!novel) throw new Failure(404, 'invalid_request', `Novel "${id}" does not exist or was removed from the catalog.`);
  return novel;
}

interface Reader {
  progress: Progress | null;
  reading: boolean;
  audio: boolean;
  earlyAccess: boolean;
}

const readerOf = (row: Row): Reader => ({
  progress: row.novelId === null ? null : (row as unknown as Progress),
  reading: row.reading as boolean,
  audio: row.audio as boolean,
  earlyAccess: row.earlyAccess as boolean,
});

const subscriberKey = (partnerId: string, subscriber: string) => ({ partner: partnerId, environment: 'live', subscriber });
const { READING_STATEMENTS: reading, PLAYBACK_STATEMENTS: playback } = sql;

/** The subscriber's progress in a novel and features: one statement (ChapterReleaseService.readerState). */
async function readerState(partnerId: string, subscriber: string, novel: string): Promise<Reader> {
  const [row] = await prepared(
    { name: 'reading.progress-with-features', text: reading.reader.text },
    reading.reader.bind({ ...subscriberKey(partnerId, subscriber), novel }),
  );
  return readerOf(row);
}

const notReleased = (novel: string, n: number, release: { started: boolean; unlocksAt: number | null }) =>
  release.started
    ? `Chapter ${n} of novel "${novel}" is not yet released for this subscriber; it is expected at ${new Date(release.unlocksAt!).toISOString()}.`
    : `Chapter ${n} of novel "${novel}" is not yet released: the subscriber has not opened the novel (POST /subscribers/{id}/novels).`;

function integerParameter(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

app.get('/v1/categories', async (request) => {
  await authorize(request);
  return { data: catalog.categories };
});

app.get('/v1/novels', async (request) => {
  await authorize(request, 'textapp:catalog:read', 'audioapp:audio:read');
  const q = request.query as Record<string, string>;
  onlyParameters(q, ['page', 'page_size', 'category_id', 'tag', 'has_audio']);
  if (q.category_id !== undefined || q.tag !== undefined || q.has_audio !== undefined) throw invalid('the baseline serves the unfiltered catalog page only');
  const page = integerParameter(q.page, 'page', 1, 1, 1_000_000);
  const pageSize = integerParameter(q.page_size, 'page_size', 20, 1, 100);
  const start = (page - 1) * pageSize;
  return { data: catalog.novels.slice(start, start + pageSize).map((n) => n.entry), page, page_size: pageSize, total: catalog.novels.length };
});

app.get('/v1/novels/:id/chapters', async (request) => {
  const principal = await authorize(request, 'textapp:catalog:read', 'audioapp:audio:read');
  const id = novelId((request.params as Row).id);
  const q = request.query as Record<string, string>;
  onlyParameters(q, ['subscriber_id']);
  const subscriber = q.subscriber_id === undefined ? undefined : subscriberId(q.subscriber_id, 'subscriber_id');
  const novel = publishedNovel(id);
  const reader = subscriber === undefined ? undefined : await readerState(principal.partnerId, subscriber, id);
  const now = Date.now();
  return {
    novel_id: novel.id,
    total_chapters: novel.totalChapters,
    chapters: (catalog.chapters.get(id) ?? []).map((c) => {
      const entry: Record<string, unknown> = { chapter_number: c.number, title: c.title, duration_seconds: c.durationSeconds };
      if (reader) {
        const release = chapterRelease(reader.progress, c.number, reader.earlyAccess, now);
        entry.status = !release.started ? 'not_started' : release.released ? 'unlocked' : 'locked';
        if (release.unlocksAt !== null) entry.unlocks_at = new Date(release.unlocksAt).toISOString();
      }
      return entry;
    }),
  };
});

app.get('/v1/subscriber/:id/reading-progress', async (request) => {
  const principal = await authorize(request, 'textapp:progress:read');
  const subscriber = subscriberId((request.params as Row).id);
  const readers = (
    await prepared(
      { name: 'reading.progress-list-with-features', text: reading.readers.text },
      reading.readers.bind(subscriberKey(principal.partnerId, subscriber)),
    )
  ).map(readerOf);
  const earlyAccess = readers[0].earlyAccess;
  const now = Date.now();
  const entries = readers.flatMap(({ progress }) => {
    const novel = progress && catalog.novelsById.get(progress.novelId);
    if (!progress || !novel) return [];
    return [
      {
        novel_id: novel.id,
        title: novel.title,
        started_at: progress.startedAt.toISOString(),
        current_chapter: progress.currentChapter,
        unlocked_chapters: progress.finishedAt
          ? novel.totalChapters
          : releasedChapterCount(progress.startedAt.getTime(), earlyAccess, novel.totalChapters, now),
        total_chapters: novel.totalChapters,
        finished_at: progress.finishedAt?.toISOString() ?? null,
        chosen_choice_id: progress.chosenChoiceId,
      },
    ];
  });
  return { subscriber_id: subscriber, active_novel_count: entries.filter((e) => e.finished_at === null).length, active_novel_limit: 3, novels: entries };
});

const positionBody = (subscriber: string, novel: string, row: Row) => ({
  subscriber_id: subscriber,
  novel_id: novel,
  chapter_id: `${novel}-ch${row.chapter_number}`,
  position_seconds: row.position_seconds,
  updated_at: (row.updated_at as Date).toISOString(),
});

app.get('/v1/subscribers/:id/playback-position', async (request) => {
  const principal = await authorize(request, 'audioapp:playback:read');
  const subscriber = subscriberId((request.params as Row).id);
  const q = request.query as Record<string, string>;
  onlyParameters(q, ['novel_id']);
  if (q.novel_id === undefined) throw invalid('novel_id is required');
  const id = novelId(q.novel_id, 'novel_id');
  publishedNovel(id);
  const [row] = await prepared(
    { name: 'playback.position-with-reader', text: playback.positionWithReader.text },
    playback.positionWithReader.bind({ ...subscriberKey(principal.partnerId, subscriber), novel: id }),
  );
  if (row.chapter_number === null) throw new Failure(404, 'not_found', `No playback position is stored for subscriber "${subscriber}" in novel "${id}".`);
  const reader = readerOf(row);
  const chapter = row.chapter_number as number;
  const release = chapterRelease(reader.progress, chapter, reader.earlyAccess, Date.now());
  if (!release.released) throw invalid(notReleased(id, chapter, release));
  return positionBody(subscriber, id, row);
});

app.put('/v1/subscribers/:id/playback-position', async (request) => {
  const principal = await authorize(request, 'audioapp:playback:write');
  const subscriber = subscriberId((request.params as Row).id);
  const body = request.body as Row | null;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('The body must be a JSON object.');
  for (const name of Object.keys(body)) if (!['novel_id', 'chapter_id', 'position_seconds'].includes(name)) throw invalid(`property ${name} should not exist`);
  const id = novelId(body.novel_id, 'novel_id');
  const chapterId = body.chapter_id;
  const seconds = body.position_seconds;
  if (typeof chapterId !== 'string' || chapterId.length < 1 || chapterId.length > 120) throw invalid('chapter_id must be 1 to 120 characters');
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > 86_400)
    throw invalid('position_seconds must be an integer from 0 to 86400');
  const prefix = `${id}-ch`;
  const digits = chapterId.startsWith(prefix) ? chapterId.slice(prefix.length) : '';
  if (!/^[1-9]\d{0,8}$/.test(digits)) throw invalid(`chapter_id must name a chapter of novel "${id}" as ${id}-ch1, ${id}-ch2, …`);
  const chapter = Number(digits);
  const novel = publishedNovel(id);
  if (chapter > novel.totalChapters) throw invalid(`chapter_id "${chapterId}" names no chapter of novel "${id}": it has ${novel.totalChapters}.`);
  const now = Date.now();
  const args = {
    ...subscriberKey(principal.partnerId, subscriber),
    novel: id,
    chapter,
    seconds,
    at: new Date(now),
    standardCutoff: new Date(releaseCutoff(chapter, false, now)),
    earlyCutoff: new Date(releaseCutoff(chapter, true, now)),
  };
  const { usualSave, firstSaveOfDay } = playback;
  let [row] = await prepared({ name: 'playback.upsert-position-if-listening-recorded', text: usualSave.text }, usualSave.bind(args));
  if (row.chapter_number === null && row.released)
    [row] = await prepared({ name: 'playback.upsert-listening-if-released', text: firstSaveOfDay.text }, firstSaveOfDay.bind(args));
  if (row.chapter_number === null) {
    const reader = readerOf(row);
    throw invalid(notReleased(id, chapter, chapterRelease(reader.progress, chapter, reader.earlyAccess, now)));
  }
  return positionBody(subscriber, id, row);
});

interface StreamIssued {
  partnerId: string;
  clientId: string;
  subscriberId: string;
  novelId: string;
  chapterNumber: number;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Group commit of the audit rows (StreamAuditBatcher): a request waits for its row's
 * INSERT; rows arriving while one is in flight share the next.
 */
const audit = (() => {
  let waiting: { entry: StreamIssued; done: (error?: unknown) => void }[] = [];
  let writing = false;
  const flush = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      const entries = batch.map((w) => w.entry);
      try {
        await prepared(sql.APPEND_STREAM_ISSUES, [
          entries.map((e) => e.partnerId),
          entries.map(() => 'live'),
          entries.map((e) => e.clientId),
          entries.map((e) => e.subscriberId),
          entries.map((e) => e.novelId),
          entries.map((e) => e.chapterNumber),
          entries.map((e) => e.issuedAt),
          entries.map((e) => e.expiresAt),
        ]);
        for (const w of batch) w.done();
      } catch (error) {
        for (const w of batch) w.done(error);
      }
    }
    writing = false;
  };
  return (entry: StreamIssued) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ entry, done: (error) => (error ? reject(error) : resolve()) });
      if (!writing) void flush();
    });
})();

/**
 * The stream endpoint as AudioService.streamUrl composes it: the chapter's audio from
 * memory, the reader in one statement, the contract's order of checks, a signed URL, the
 * audit row by group commit.
 */
app.get('/v1/novels/:id/chapters/:n/stream', async (request) => {
  const principal = await authorize(request, 'audioapp:audio:read');
  const params = request.params as Record<string, string>;
  const id = novelId(params.id);
  const n = integerParameter(params.n, 'chapterNumber', 0, 1, 1_000_000);
  const q = request.query as Record<string, string>;
  onlyParameters(q, ['subscriber_id']);
  const subscriber = subscriberId(q.subscriber_id, 'subscriber_id');
  publishedNovel(id);
  const chapter = catalog.chapters.get(id)?.[n - 1];
  const reader = await readerState(principal.partnerId, subscriber, id);
  if (!chapter) throw new Failure(404, 'not_found', `Novel "${id}" has no chapter ${n}.`);
  if (!reader.audio) throw new Failure(403, 'plan_without_audio', `Subscriber "${subscriber}" has no plan that includes audio.`);
  const release = chapterRelease(reader.progress, n, reader.earlyAccess, Date.now());
  if (!release.released) throw new Failure(403, 'chapter_locked', notReleased(id, n, release));
  if (chapter.audioStatus !== 'ready' || !chapter.audioKey) throw new Failure(404, 'audio_not_ready', `The audio of chapter ${n} is not ready.`);
  const key = chapter.audioKey;
  const issuedAt = Math.floor(Date.now() / 1000);
  const expires = issuedAt + STREAM_URL_TTL_SECONDS;
  await audit({
    partnerId: principal.partnerId,
    clientId: principal.clientId,
    subscriberId: subscriber,
    novelId: id,
    chapterNumber: n,
    issuedAt: new Date(issuedAt * 1000),
    expiresAt: new Date(expires * 1000),
  });
  return {
    stream_url: `${publicBaseUrl}/media/${key}?expires=${expires}&signature=${signMediaUrl(key, expires)}`,
    expires_in: STREAM_URL_TTL_SECONDS,
    format: 'mp3',
    duration_seconds: chapter.audioDurationSeconds,
  };
});

app.register(async (scope) => {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, new URLSearchParams(body as string)),
  );
  scope.post('/platform/v1/oauth2/token', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const form = request.body as URLSearchParams | undefined;
    if (form?.get('grant_type') !== 'client_credentials') throw invalid('grant_type must be client_credentials.');
    const issued = await tokens.issue(request.headers.authorization, request.ip);
    if (issued === 'rate_limited') throw new Failure(429, 'rate_limited', 'Too many failed authentications for this client from this address.');
    if (!issued) throw new Failure(401, 'invalid_client', 'Client authentication failed.');
    return issued;
  });
});

app.get('/v1/analytics/engagement', async (request) => {
  const principal = await authorize(request, 'textapp:analytics:read');
  const q = request.query as Record<string, string>;
  onlyParameters(q, ['period_start', 'period_end']);
  if (!DATE.test(q.period_start ?? '') || !DATE.test(q.period_end ?? '')) throw invalid('period_start and period_end must be dates YYYY-MM-DD.');
  const from = new Date(`${q.period_start}T00:00:00Z`);
  const until = new Date(new Date(`${q.period_end}T00:00:00Z`).getTime() + 86_400_000);
  const counts = sql.engagementCountParameters(
    { partnerId: principal.partnerId, environment: 'live' },
    { start: q.period_start, end: q.period_end, from, until },
  );
  const [[reading], [novels], endings] = await Promise.all([
    query(sql.ENGAGEMENT_STATEMENTS.readingTotals, [...counts, q.period_start]),
    query(sql.ENGAGEMENT_STATEMENTS.startedNovels, counts),
    query(sql.ENGAGEMENT_STATEMENTS.endingCounts, [...counts, sql.ENGAGEMENT_MINIMUM_COHORT]),
  ]);
  const ratio = (part: number, whole: number, digits: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10 ** digits) / 10 ** digits);
  return {
    period_start: q.period_start,
    period_end: q.period_end,
    active_readers: reading.active_readers,
    avg_chapters_read_per_active_reader: ratio(reading.chapters_read as number, reading.active_readers as number, 2),
    completion_rate: ratio(novels.finished as number, novels.started as number, 4),
    ending_distribution: labelEndings(endings)
      .filter((e) => (e.count as number) >= 20)
      .map((e) => ({ novel_id: e.novelId, choice_id: e.choiceId, label: e.label, count: e.count })),
    minimum_cohort_size: 20,
    generated_at: new Date().toISOString(),
  };
});

/**
 * The service's labelEndings, by hand: each row is labelled from the catalog (its choice id
 * when the catalog lacks it) and sorted by its place in the catalog's ending order; unknown
 * endings after their novel's known ones, unknown novels last, by id.
 */
function labelEndings(rows: Row[]): Row[] {
  const placed = rows.map((row) => {
    const novel = catalog.endingLabels.get(row.novelId as string);
    const known = novel?.get(row.choiceId as string);
    const place = known?.position ?? (novel ? Math.max(...[...novel.values()].map((e) => e.position)) + 0.5 : Infinity);
    return { row: { ...row, label: known?.label ?? row.choiceId }, place, key: `${row.novelId as string}\u0000${row.choiceId as string}` };
  });
  placed.sort((a, b) => (a.place < b.place ? -1 : a.place > b.place ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return placed.map((p) => p.row);
}

await app.listen({ port: Number(env('PORT')), host: process.env.HOST ?? '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await app.close();
    await pool.end();
    process.exit(0);
  });
}
