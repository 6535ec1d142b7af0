import pg from 'pg';
import { loadConfig } from '../../src/config/app-config.js';
import { ChapterUnlockJob } from '../../src/modules/reading/index.js';
import { withServiceContext } from '../shared/service-context.js';

/**
 * The `chapter.unlocked` job at scale: `readers` opened novels on the schedule, `due` of
 * them due now, one run of the job as the service makes it (the same module, in-process,
 * on the bench database). What is due is announced; the rest must cost nothing.
 */
export interface UnlockJobCheck {
  readers: number;
  due: number;
  announced: number;
  runMs: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function measureUnlockJob(url: string, env: Record<string, string>, novelId: string, readers: number, due: number): Promise<UnlockJobCheck> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const partnerId = await seedReaders(db, novelId, readers, due);
  try {
    return await withServiceContext(loadConfig({ ...env, DATABASE_URL: url }), url, async (context) => {
      const started = performance.now();
      const result = await context.get(ChapterUnlockJob).runOnce(new Date());
      return { readers, due, announced: result.announced, runMs: Math.round(performance.now() - started) };
    });
  } finally {
    await db.query(`DELETE FROM webhook_deliveries WHERE partner_id = $1`, [partnerId]);
    await db.query(`DELETE FROM webhook_events WHERE partner_id = $1`, [partnerId]);
    await db.query(`DELETE FROM chapter_unlock_schedule WHERE partner_id = $1`, [partnerId]);
    await db.query(`DELETE FROM novel_progress WHERE partner_id = $1`, [partnerId]);
    await db.end();
  }
}

/** A partner of its own, subscribed a week ago, with `readers` readings started yesterday; the first `due` are due. */
async function seedReaders(db: pg.Client, novelId: string, readers: number, due: number): Promise<string> {
  const started = Date.now();
  const [{ id: partnerId }] = (await db.query(`INSERT INTO partners (name) VALUES ('bench unlocks') RETURNING id`)).rows;
  await db.query(
    `INSERT INTO webhook_endpoints (partner_id, environment, url, event_types, created_at)
     VALUES ($1, 'live', 'https://receiver.invalid/hooks', ARRAY['chapter.unlocked'], now() - interval '7 days')`,
    [partnerId],
  );
  const startedAt = new Date(Date.now() - 86_400_000);
  await db.query(
    `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at)
       SELECT $1, 'live', 'unlock-' || i, $2, $3 FROM generate_series(1, $4) AS i`,
    [partnerId, novelId, startedAt, readers],
  );
  await db.query(
    `INSERT INTO chapter_unlock_schedule (partner_id, environment, subscriber_id, novel_id, started_at, not_before, next_chapter, next_unlock_at)
       SELECT $1, 'live', 'unlock-' || i, $2, $3, $3, 2,
              CASE WHEN i <= $5 THEN now() - interval '1 minute' ELSE now() + interval '30 days' END
         FROM generate_series(1, $4) AS i`,
    [partnerId, novelId, startedAt, readers, due],
  );
  await db.query(
    `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan, effective_at)
       SELECT $1, 'live', 'unlock-' || i, 'textapp', 'active', 'text_standard', now() FROM generate_series(1, $2) AS i`,
    [partnerId, due],
  );
  await db.query('ANALYZE chapter_unlock_schedule; ANALYZE novel_progress');
  log(`bench: seeded ${readers} readings for the chapter.unlocked job (${due} due) in ${Math.round((Date.now() - started) / 1000)} s`);
  return partnerId;
}
