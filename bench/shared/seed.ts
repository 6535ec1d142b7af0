import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type AppConfig, loadConfig } from '../../src/config/app-config.js';
import { SCOPES } from '../../src/modules/identity/index.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import type { DataSize } from './options.js';
import { withServiceContext } from './service-context.js';

export interface BenchCredential {
  clientId: string;
  clientSecret: string;
}

/** A (subscriber, novel) pair with a progress row and a stored position in a released chapter. */
export interface ReaderSample {
  subscriberId: string;
  novelId: string;
  chapterNumber: number;
}

export interface SeededData {
  partnerId: string;
  credentials: BenchCredential[];
  novelIds: string[];
  readers: ReaderSample[];
  /** Every activity row falls in this inclusive UTC date range: the engagement report's period. */
  period: { start: string; end: string };
  rowCounts: Record<string, number>;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Days of history: progress starts and activity fall in the last ACTIVITY_DAYS days. */
const ACTIVITY_DAYS = 60;
/** Every fifth subscriber is a children's account. */
const KIDS_ACCOUNT_EVERY = 5;
/** Imported story sessions per children's account over the ACTIVITY_DAYS (two children, a story every few days). */
const KIDS_SESSIONS_PER_ACCOUNT = 20;
/** Activity events per listening session (one subscriber, one chapter, a few minutes). */
const EVENTS_PER_SESSION = 10;

/**
 * The listeners the scenarios sample ($1: the partner): 20 000 of the stored playback
 * positions, in a fixed pseudo-random order.
 */
const LISTENERS_NOW = `SELECT partner_id, environment, subscriber_id, novel_id, chapter_number
  FROM playback_positions WHERE partner_id = $1 ORDER BY md5(subscriber_id) LIMIT 20000`;
const BENCH_AUDIO_PREFIX = 'live/bench';

/**
 * Seeds a migrated, empty live catalog and one partner's subscribers with set-based SQL
 * (INSERT … SELECT over generate_series, in batches that report progress). Everything
 * derives from row numbers through cheap hashes, so a run is reproducible in shape.
 */
export async function seed(serviceEnv: Record<string, string>, size: DataSize, audioSourceDir: string): Promise<SeededData> {
  const { DATABASE_URL: url, SERVER_SECRET: serverSecret, DATA_DIR: dataDir } = serviceEnv;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const started = Date.now();
  try {
    await db.query('SET synchronous_commit = off');
    const partnerId = await seedPartner(db);
    const credentials = await seedCredentials(db, partnerId, size.credentials, serverSecret);
    const audio = storeBenchAudio(dataDir, audioSourceDir, size.chaptersPerNovel);
    await seedCatalog(db, size, audio);
    await seedEntitlements(db, partnerId, size);
    await seedProgress(db, partnerId, size);
    await seedPositions(db, partnerId, size);
    await seedActivity(db, partnerId, size);
    await seedKidsActivity(db, partnerId, size);
    await step('signed counts folded, their tables compacted', () => foldSignedCounts(db, serviceEnv));
    await step('VACUUM ANALYZE', () => db.query('VACUUM ANALYZE'));
    const rowCounts = await countRows(db);
    log(
      `seed: done in ${seconds(started)} s: ${Object.entries(rowCounts)
        .map(([t, n]) => `${t} ${n.toLocaleString('en')}`)
        .join(', ')}`,
    );
    const novelIds = (await db.query<{ id: string }>(`SELECT id FROM novels WHERE environment = 'live' AND status = 'published' ORDER BY id`)).rows.map(
      (r) => r.id,
    );
    const readers = (
      await db.query<{ subscriber_id: string; novel_id: string; chapter_number: number }>(
        `SELECT subscriber_id, novel_id, chapter_number FROM (${LISTENERS_NOW}) AS sample`,
        [partnerId],
      )
    ).rows.map((r) => ({ subscriberId: r.subscriber_id, novelId: r.novel_id, chapterNumber: r.chapter_number }));
    const {
      rows: [period],
    } = await db.query<{ start: string; end: string }>(
      `SELECT to_char((now() AT TIME ZONE 'UTC')::date - ${ACTIVITY_DAYS}, 'YYYY-MM-DD') AS start, to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS end`,
    );
    return { partnerId, credentials, novelIds, readers, period, rowCounts };
  } finally {
    await db.end();
  }
}

async function seedPartner(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ id: string }>(`INSERT INTO partners (name) VALUES ('Bench partner') RETURNING id`);
  return rows[0].id;
}

/** Credentials hashed exactly as the service stores them (ServerSecrets with the same SERVER_SECRET). */
async function seedCredentials(db: pg.Client, partnerId: string, count: number, serverSecret: string): Promise<BenchCredential[]> {
  const secrets = new ServerSecrets({ serverSecret: Buffer.from(serverSecret, 'utf8') } as AppConfig);
  const credentials = Array.from({ length: count }, () => ({
    clientId: `live_${randomBytes(12).toString('hex')}`,
    clientSecret: `sk_live_${randomBytes(32).toString('base64url')}`,
  }));
  await db.query(
    `INSERT INTO credentials (client_id, partner_id, secret_hash, scopes, environment)
     SELECT c.client_id, $1, decode(c.secret_hash, 'hex'), $3::text[], 'live'
       FROM jsonb_to_recordset($2::jsonb) AS c(client_id text, secret_hash text)`,
    [
      partnerId,
      JSON.stringify(credentials.map((c) => ({ client_id: c.clientId, secret_hash: secrets.hashSecret(c.clientSecret).toString('hex') }))),
      [...SCOPES],
    ],
  );
  log(`seed: partner ${partnerId} with ${count} credentials (every scope)`);
  return credentials;
}

interface BenchAudio {
  /** Bytes of chapter n's file at index n - 1. */
  bytes: number[];
}

/**
 * One real mp3 per chapter number under DATA_DIR/media/live/bench/ (copies of the demo
 * narration): every novel's chapter n points at `live/bench/ch{n}.mp3`, so 30 small files
 * serve 30 000 chapters and the issued stream URLs can really be fetched.
 */
function storeBenchAudio(dataDir: string, sourceDir: string, chapters: number): BenchAudio {
  const sources = readdirSync(sourceDir)
    .filter((f) => f.endsWith('.mp3'))
    .sort();
  if (sources.length === 0) throw new Error(`no mp3 in ${sourceDir}`);
  const target = join(dataDir, 'media', BENCH_AUDIO_PREFIX);
  mkdirSync(target, { recursive: true });
  const bytes: number[] = [];
  for (let n = 1; n <= chapters; n++) {
    const source = join(sourceDir, sources[(n - 1) % sources.length]);
    copyFileSync(source, join(target, `ch${n}.mp3`));
    bytes.push(statSync(source).size);
  }
  log(`seed: ${chapters} mp3 files in ${target}`);
  return { bytes };
}

async function seedCatalog(db: pg.Client, size: DataSize, audio: BenchAudio): Promise<void> {
  await step('categories', () =>
    db.query(
      `INSERT INTO categories (environment, id, name, sort_order)
       SELECT 'live', c, initcap(c), o FROM unnest($1::text[]) WITH ORDINALITY AS t(c, o)`,
      [['romance', 'drama', 'fantasy', 'mystery', 'thriller', 'comedy', 'horror', 'science-fiction', 'historical', 'young-adult', 'adventure', 'family']],
    ),
  );
  // Titles start with a word picked by hash, so title order is not id order.
  await step(`novels (${size.novels})`, () =>
    db.query(
      `WITH words AS (SELECT ARRAY['Silent','Crimson','Hidden','Golden','Broken','Distant','Secret','Wild','Last','Northern','Midnight','Paper','Glass','Iron','Velvet','Salt'] AS w),
            cats AS (SELECT array_agg(id ORDER BY sort_order) AS c FROM categories WHERE environment = 'live'),
            tags AS (SELECT ARRAY['drama','romance','twist','slow-burn','family','revenge','office','royalty','magic','detective'] AS t)
       INSERT INTO novels (environment, id, title, synopsis, author, category_id, tags, language, cover_url, status, total_chapters, has_audio, updated_at)
       SELECT 'live', format('novel-%s', lpad(n::text, 5, '0')),
              w[1 + abs(hashint4(n)) % 16] || ' ' || w[1 + abs(hashint4(n * 7)) % 16] || ' ' || n,
              repeat('A serialized interactive novel told one chapter a day. ', 6),
              format('Author %s', 1 + n % 97),
              c[1 + n % array_length(c, 1)],
              ARRAY[t[1 + n % 10], t[1 + (n / 10) % 10]],
              'pt-BR',
              format('https://cdn.example.com/covers/novel-%s.jpg', n),
              'published', $2, true, now() - make_interval(hours => n % 500)
         FROM generate_series(1, $1) AS n, words, cats, tags`,
      [size.novels, size.chaptersPerNovel],
    ),
  );
  const batch = Math.max(1, Math.floor(10_000 / size.chaptersPerNovel));
  await batched(`chapters (${(size.novels * size.chaptersPerNovel).toLocaleString('en')}, about 4 KB of text each)`, size.novels, batch, (from, to) =>
    db.query(
      `INSERT INTO chapters (environment, novel_id, number, title, body, duration_seconds, audio_status, audio_key, audio_bytes, audio_duration_seconds, audio_bitrate_kbps)
       SELECT 'live', format('novel-%s', lpad(n::text, 5, '0')), c, format('Chapter %s', c),
              (SELECT string_agg(md5(n::text || ':' || c || ':' || i), ' ') FROM generate_series(1, 120) AS i),
              300 + abs(hashint4(n * 31 + c)) % 600,
              'ready', format('${BENCH_AUDIO_PREFIX}/ch%s.mp3', c), ($4::bigint[])[c], ($4::bigint[])[c] * 8 / 32000, 32
         FROM generate_series($1::int, $2::int) AS n, generate_series(1, $3::int) AS c`,
      [from, to, size.chaptersPerNovel, audio.bytes],
    ),
  );
  await step('endings (3 per novel)', () =>
    db.query(
      `INSERT INTO endings (environment, novel_id, choice_id, label, ending, sort_order)
       SELECT 'live', format('novel-%s', lpad(n::text, 5, '0')), (ARRAY['stay','leave','forgive'])[e], (ARRAY['Stay','Leave','Forgive'])[e],
              repeat('And so the story ends. ', 10), e
         FROM generate_series(1, $1) AS n, generate_series(1, 3) AS e`,
      [size.novels],
    ),
  );
}

/**
 * Subscriber n is `sub-0000n`: an active audioapp entitlement (a quarter with early access);
 * every third also textapp; every fifth is also a children's account (kidsapp). The first two
 * take effect now (billing reads this month's history); kidsapp before the children's
 * sessions, as an account is entitled before its children read (ADR 0133).
 */
async function seedEntitlements(db: pg.Client, partnerId: string, size: DataSize): Promise<void> {
  await batched(`entitlements (${size.subscribers.toLocaleString('en')} subscribers)`, size.subscribers, 50_000, (from, to) =>
    db.query(
      `WITH rows AS (
         SELECT format('sub-%s', lpad(s::text, 7, '0')) AS subscriber_id, 'audioapp' AS product,
                CASE WHEN s % 4 = 0 THEN 'audio_early' ELSE 'audio_standard' END AS plan
           FROM generate_series($2::int, $3::int) AS s
         UNION ALL
         SELECT format('sub-%s', lpad(s::text, 7, '0')), 'textapp', 'text_standard'
           FROM generate_series($2::int, $3::int) AS s WHERE s % 3 = 0
         UNION ALL
         SELECT format('sub-%s', lpad(s::text, 7, '0')), 'kidsapp', 'kids_standard'
           FROM generate_series($2::int, $3::int) AS s WHERE s % ${KIDS_ACCOUNT_EVERY} = 0),
       inserted AS (
         INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, partner_plan, internal_plan, effective_at)
         SELECT $1, 'live', subscriber_id, product, 'active', plan, plan,
                CASE WHEN product = 'kidsapp' THEN now() - interval '${ACTIVITY_DAYS + 1} days' ELSE clock_timestamp() END
           FROM rows
         RETURNING subscriber_id, product, internal_plan, effective_at)
       INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, partner_plan, internal_plan, changed_by, effective_at)
       SELECT $1, 'live', subscriber_id, product, NULL, 'active', internal_plan, internal_plan, 'bench-seed', effective_at FROM inserted`,
      [partnerId, from, to],
    ),
  );
}

/**
 * Each subscriber has opened novelsPerSubscriber novels, started in the last 60 days; the
 * last of them is finished (ending chosen) when it started more than 30 days ago.
 */
async function seedProgress(db: pg.Client, partnerId: string, size: DataSize): Promise<void> {
  await batched(`novel_progress (${(size.subscribers * size.novelsPerSubscriber).toLocaleString('en')})`, size.subscribers, 50_000, (from, to) =>
    db.query(
      `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at, current_chapter, finished_at, chosen_choice_id)
       SELECT $1, 'live', format('sub-%s', lpad(s::text, 7, '0')), format('novel-%s', lpad((1 + (s * $4 + k) % $5)::text, 5, '0')),
              p.started_at,
              greatest(1, least($6::int, floor(extract(epoch FROM now() - p.started_at) / 86400)::int)),
              CASE WHEN p.finished THEN p.started_at + interval '30 days' END,
              CASE WHEN p.finished THEN (ARRAY['stay','leave','forgive'])[1 + s % 3] END
         FROM generate_series($2::int, $3::int) AS s, generate_series(0, $4 - 1) AS k,
              LATERAL (SELECT now() - make_interval(secs => abs(hashint4(s * 17 + k)) % (${ACTIVITY_DAYS} * 86400)) AS started_at) AS t,
              LATERAL (SELECT t.started_at, k = $4 - 1 AND t.started_at < now() - interval '31 days' AS finished) AS p`,
      [partnerId, from, to, size.novelsPerSubscriber, size.novels, size.chaptersPerNovel],
    ),
  );
}

/** One position per subscriber (up to playbackPositions), in its first novel, in a chapter the drip has released. */
async function seedPositions(db: pg.Client, partnerId: string, size: DataSize): Promise<void> {
  const count = Math.min(size.playbackPositions, size.subscribers);
  await batched(`playback_positions (${count.toLocaleString('en')})`, count, 50_000, (from, to) =>
    db.query(
      `INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
       SELECT p.partner_id, p.environment, p.subscriber_id, p.novel_id,
              greatest(1, least($5::int, floor(extract(epoch FROM now() - p.started_at) / 86400)::int)),
              abs(hashint4(s)) % 600, now() - make_interval(mins => abs(hashint4(s * 3)) % 1440)
         FROM generate_series($2::int, $3::int) AS s
         JOIN novel_progress p ON p.partner_id = $1 AND p.environment = 'live'
          AND p.subscriber_id = format('sub-%s', lpad(s::text, 7, '0'))
          AND p.novel_id = format('novel-%s', lpad((1 + (s * $4) % $6)::text, 5, '0'))`,
      [partnerId, from, to, size.novelsPerSubscriber, size.chaptersPerNovel, size.novels],
    ),
  );
}

/**
 * Reading activity (chapter-text reads and playback writes) over the last 60 days, in time
 * order: row i happens at i/total of the period, so each batch is a slice of time, as
 * activity arrives. Rows come in listening sessions of EVENTS_PER_SESSION consecutive
 * events of one subscriber on one chapter (a player saves its position every few seconds,
 * and every save records activity), which is what the analytics rollups compress: a
 * session is one row of reading_chapter_days however many events it has.
 *
 * The analytics rollups (migration 1763900400000: a statement trigger on reading_activity
 * keeps reading_reader_days and reading_chapter_days) make bulk loads through the trigger
 * very slow (over four minutes per 200 000 rows). The seed loads all but the last batch
 * with triggers off and builds both rollups in one pass with the rule the migration states
 * (one row per key and UTC day, previous_day = the key's latest earlier day, -infinity
 * when none): the same rows the trigger writes into empty tables. The last batch goes
 * through the trigger, on top of them.
 */
async function seedActivity(db: pg.Client, partnerId: string, size: DataSize): Promise<void> {
  const batch = 200_000;
  const insert = (from: number, to: number) =>
    db.query(
      `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
       SELECT $1, 'live', format('sub-%s', lpad(s::text, 7, '0')), format('novel-%s', lpad((1 + (s * $5 + session % $5) % $6)::text, 5, '0')),
              1 + abs(hashint4(session * 13)) % $7, CASE WHEN session % 4 = 0 THEN 'text' ELSE 'audio' END,
              now() - make_interval(secs => ${ACTIVITY_DAYS} * 86400 - 60) + make_interval(secs => (${ACTIVITY_DAYS} * 86400 - 120)::float8 * i / $8)
         FROM generate_series($2::int, $3::int) AS i,
              LATERAL (SELECT i / ${EVENTS_PER_SESSION} AS session) AS grouped,
              LATERAL (SELECT 1 + abs(hashint4(session)) % $4 AS s) AS pick`,
      [partnerId, from, to, size.subscribers, size.novelsPerSubscriber, size.novels, size.chaptersPerNovel, size.activityRows],
    );
  const rollups = (await db.query(`SELECT to_regclass('reading_chapter_days') IS NOT NULL AS present`)).rows[0].present === true;
  if (!rollups) {
    await batched(`reading_activity (${size.activityRows.toLocaleString('en')})`, size.activityRows, batch, insert);
    await recordListeningNow(db, partnerId);
    return;
  }
  // Session-level trigger switch: needs a superuser (the embedded server's user is one).
  const triggersOff = await db.query(`SET session_replication_role = replica`).then(
    () => true,
    () => false,
  );
  if (!triggersOff) {
    log('seed: cannot switch triggers off (not a superuser): activity goes through the rollup trigger, which is slow');
    await batched(`reading_activity (${size.activityRows.toLocaleString('en')})`, size.activityRows, batch, insert);
    await recordListeningNow(db, partnerId);
    return;
  }
  const throughTrigger = Math.min(10_000, Math.ceil(size.activityRows / 100));
  const direct = size.activityRows - throughTrigger;
  await batched(`reading_activity (${direct.toLocaleString('en')} of ${size.activityRows.toLocaleString('en')}, rollup trigger off)`, direct, batch, insert);
  await recordListeningNow(db, partnerId);
  await db.query(`SET session_replication_role = DEFAULT`);
  await step('analytics rollups (reading_reader_days, reading_chapter_days) in one pass', () =>
    db.query(
      `INSERT INTO reading_reader_days (partner_id, environment, subscriber_id, day, previous_day)
       SELECT partner_id, environment, subscriber_id, day,
              coalesce(lag(day) OVER (PARTITION BY partner_id, environment, subscriber_id ORDER BY day), '-infinity')
         FROM (SELECT DISTINCT partner_id, environment, subscriber_id, (occurred_at AT TIME ZONE 'UTC')::date AS day FROM reading_activity) AS d;
       INSERT INTO reading_chapter_days (partner_id, environment, subscriber_id, novel_id, chapter_number, day, previous_day)
       SELECT partner_id, environment, subscriber_id, novel_id, chapter_number, day,
              coalesce(lag(day) OVER (PARTITION BY partner_id, environment, subscriber_id, novel_id, chapter_number ORDER BY day), '-infinity')
         FROM (SELECT DISTINCT partner_id, environment, subscriber_id, novel_id, chapter_number, (occurred_at AT TIME ZONE 'UTC')::date AS day
                 FROM reading_activity) AS d`,
    ),
  );
  await db.query('ANALYZE reading_reader_days, reading_chapter_days');
  await batched(`reading_activity (the last ${throughTrigger.toLocaleString('en')}, through the rollup trigger)`, throughTrigger, 2_000, (from, to) =>
    insert(direct + from, direct + to),
  );
}

/**
 * Settles every table the service's signed-count job settles (ADR 0129), by the job's own
 * registry and statements, then rewrites each compactly: the state the service keeps. There
 * the job settles a minute's deltas at a time and autovacuum reuses their space, so a table
 * stays near its live rows. Left to the service, the seed's burst of deltas would be folded
 * during the first endpoints' measurements and leave the tables 15 times their live pages
 * (×10) for every report to scan. Answers the tables settled.
 */
export async function foldSignedCounts(db: pg.Client, serviceEnv: Record<string, string>): Promise<string[]> {
  const tables = await withServiceContext(loadConfig(serviceEnv), serviceEnv.DATABASE_URL, async (context) => {
    const folding = context.get(SignedCountFolding);
    const registered = folding.registeredTables();
    // foldAll leaves a table whose turn another holds (the job's own run): fold until none is
    // pending, within a bound, so that a rule that never settles fails the seed instead of hanging it.
    for (let turn = 1; (await pendingRows(db, registered)) > 0; turn++) {
      if (turn > MAX_FOLD_TURNS) throw new Error(`seed: signed counts still pending after ${MAX_FOLD_TURNS} folds`);
      await folding.foldAll();
    }
    return registered;
  });
  for (const table of tables) await db.query(`VACUUM FULL ${table}`);
  return tables;
}

/** Folds the seed allows before giving up: one settles everything unless the job's run holds a turn. */
const MAX_FOLD_TURNS = 20;

async function pendingRows(db: pg.Client, tables: readonly string[]): Promise<number> {
  const counts = tables.map((table) => `(SELECT count(*) FROM ${table} WHERE NOT settled)`).join(' + ');
  return (await db.query<{ pending: number }>(`SELECT (${counts})::int AS pending`)).rows[0].pending;
}

/** The children's accounts' imported sessions (kids:import), spread over the last ACTIVITY_DAYS days; half completed. */
async function seedKidsActivity(db: pg.Client, partnerId: string, size: DataSize): Promise<void> {
  const accounts = Math.floor(size.subscribers / KIDS_ACCOUNT_EVERY);
  await batched(`kids_activity (${(accounts * KIDS_SESSIONS_PER_ACCOUNT).toLocaleString('en')})`, accounts, 20_000, (from, to) =>
    db.query(
      `INSERT INTO kids_activity (partner_id, environment, account_id, child_ref, story_id, occurred_at, minutes, completed_at)
       SELECT $1, 'live', format('sub-%s', lpad((a * $2)::text, 7, '0')), 'child-' || (1 + k % 2), 'story-' || (1 + abs(hashint4(a * 31 + k)) % 500),
              t.occurred_at, 5 + abs(hashint4(a + k)) % 25, CASE WHEN k % 2 = 0 THEN t.occurred_at + interval '20 minutes' END
         FROM generate_series($3::int, $4::int) AS a, generate_series(1, $5::int) AS k,
              LATERAL (SELECT now() - make_interval(secs => abs(hashint4(a * 7 + k)) % (${ACTIVITY_DAYS} * 86400)) AS occurred_at) AS t`,
      [partnerId, KIDS_ACCOUNT_EVERY, from, to, KIDS_SESSIONS_PER_ACCOUNT],
    ),
  );
}

/**
 * The sampled listeners are listening now: each saved its position in its chapter moments
 * ago, and that save recorded its activity, as every playback write does. So the bench's
 * playback PUTs are a listener's next saves, what a player sends every few seconds, and
 * not the first save of a (listener, chapter, UTC day), which also adds that day to the
 * analytics rollups and comes once per chapter a listener plays that day. Without this,
 * about half of the PUTs of a run were first saves of the day (each run restarts the
 * listener sequence), and more of them in the service's rounds than in the baseline's,
 * which runs second.
 */
async function recordListeningNow(db: pg.Client, partnerId: string): Promise<void> {
  await step("the sampled listeners' latest saves (positions and activity, now)", () =>
    db.query(
      `WITH listener AS (${LISTENERS_NOW}),
            saved AS (
              UPDATE playback_positions pp SET updated_at = now() - interval '1 second'
                FROM listener l
               WHERE pp.partner_id = l.partner_id AND pp.environment = l.environment AND pp.subscriber_id = l.subscriber_id AND pp.novel_id = l.novel_id)
       INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
       SELECT partner_id, environment, subscriber_id, novel_id, chapter_number, 'audio', now() - interval '1 second' FROM listener`,
      [partnerId],
    ),
  );
}

async function countRows(db: pg.Client): Promise<Record<string, number>> {
  const tables = [
    'novels',
    'chapters',
    'entitlements',
    'entitlement_history',
    'novel_progress',
    'playback_positions',
    'reading_activity',
    'kids_activity',
    'credentials',
  ];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    counts[table] = Number((await db.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  }
  return counts;
}

async function step(label: string, work: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  await work();
  log(`seed: ${label} in ${seconds(started)} s`);
}

/** Runs work over 1..total in slices of `size`, printing progress after each. */
async function batched(label: string, total: number, size: number, work: (from: number, to: number) => Promise<unknown>): Promise<void> {
  const started = Date.now();
  for (let from = 1; from <= total; from += size) {
    const to = Math.min(total, from + size - 1);
    await work(from, to);
    process.stderr.write(`\rseed: ${label}: ${Math.round((to / total) * 100)}% (${seconds(started)} s)   `);
  }
  process.stderr.write('\n');
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
