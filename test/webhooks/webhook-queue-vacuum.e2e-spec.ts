import { CLAIM_SQL } from '../../src/modules/webhooks/queries.js';
import { addDeliveries, buffersRead, useQueueTestApp } from './webhook-queue-kit.js';
import { partnerWithEndpoint } from './webhook-test-kit.js';

/**
 * ADR 0060: every delivery leaves dead entries in the claim's due index, which every claim,
 * for every partner, walks until vacuum removes them; the queue's own storage settings make
 * vacuum remove them even when the churn sits in a few of a large table's pages. A database
 * of its own: the claim's buffers are compared with a baseline no other test moves.
 */
const queue = useQueueTestApp();

const claimBuffers = () => buffersRead(queue.db, CLAIM_SQL, [64, 4, 20_000]);

it("reads no more once a partner's delivered backlog is vacuumed, though its dead rows sit in a few of a large table's pages", async () => {
  const waiting = await partnerWithEndpoint(queue.app, 'http://127.0.0.1:9/waiting');
  await addDeliveries(queue.db, waiting.tenant.partnerId, waiting.endpoint.id, 1, 1);
  // Delivered rows kept for the event retention: the drained rows below sit in under 2 % of
  // the table's pages, where PostgreSQL's default vacuum leaves the indexes as they are.
  const kept = await partnerWithEndpoint(queue.app, 'http://127.0.0.1:9/kept');
  await addDeliveries(queue.db, kept.tenant.partnerId, kept.endpoint.id, 300_000, 1, 'delivered');
  await queue.db.query('VACUUM ANALYZE webhook_deliveries');
  const claimBefore = await claimBuffers();

  // Each delivery is leased by a claim, then delivered: two dead entries at the head of the
  // partner's range in the due index, which every claim walks until vacuum removes them.
  const drained = await partnerWithEndpoint(queue.app, 'http://127.0.0.1:9/drained');
  await addDeliveries(queue.db, drained.tenant.partnerId, drained.endpoint.id, 2_000, 1);
  await queue.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '20 s', claim_token = gen_random_uuid() WHERE endpoint_id = $1`, [
    drained.endpoint.id,
  ]);
  await queue.db.query(
    `UPDATE webhook_deliveries SET status = 'delivered', claim_token = NULL, next_attempt_at = NULL, attempts_made = 1 WHERE endpoint_id = $1`,
    [drained.endpoint.id],
  );
  const claimDrained = await claimBuffers();
  // As autovacuum runs it: with the table's own settings (migration 1764200900000).
  await queue.db.query('VACUUM webhook_deliveries');
  const claimAfter = await claimBuffers();
  // The drained partner's own probes into its emptied ranges read a few pages.
  const ownProbes = 5;
  expect({ claimBefore, claimDrained, claimAfter, drainShows: claimDrained > claimBefore + ownProbes, flat: claimAfter <= claimBefore + ownProbes }).toEqual({
    claimBefore,
    claimDrained,
    claimAfter,
    drainShows: true,
    flat: true,
  });
});

it('is vacuumed after 10 000 dead rows and 0.5 % of the table, not the 20 % by default of a table that keeps 90 days of deliveries', async () => {
  const { rows } = await queue.db.query<{ reloptions: string[] }>(`SELECT reloptions FROM pg_class WHERE oid = 'webhook_deliveries'::regclass`);
  expect(rows[0].reloptions.sort()).toEqual(['autovacuum_vacuum_scale_factor=0.005', 'autovacuum_vacuum_threshold=10000', 'vacuum_index_cleanup=on']);
});
