import pg from 'pg';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * Replicas keep reference data (the catalog, plan mappings, credential statuses) in memory
 * and must agree within 1 s of a change. Tests poll to this deadline: the promise, with
 * slack for a loaded test machine.
 */
export const REPLICA_DEADLINE_MS = 1_500;

/** Polls until `check` holds, and answers how long it took; fails after `deadlineMs`. */
export async function msUntil(check: () => Promise<boolean>, deadlineMs = REPLICA_DEADLINE_MS): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > deadlineMs) throw new Error(`not seen within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - start;
}

/** Two replicas of the service on one database, and a plain client of that database. */
export interface TwoReplicas {
  first: TestApp;
  second: TestApp;
  db: pg.Client;
}

/**
 * The set-up of a test file about replicas: two services started with the same settings on
 * one database before the file's (or the describe block's) tests, closed after them. Read
 * the fields inside tests and hooks (they are filled in `beforeAll`).
 */
export function useTwoReplicas(env: Record<string, string> = {}): TwoReplicas {
  const replicas = {} as TwoReplicas;
  beforeAll(async () => {
    replicas.first = await startTestApp(env);
    replicas.second = await startTestApp(env, replicas.first.databaseUrl);
    replicas.db = new pg.Client({ connectionString: replicas.first.databaseUrl });
    await replicas.db.connect();
  });
  afterAll(async () => {
    await replicas.db?.end();
    await replicas.second?.close();
    await replicas.first?.close();
  });
  return replicas;
}
