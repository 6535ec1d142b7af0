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
