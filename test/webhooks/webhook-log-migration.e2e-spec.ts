import { DataSource } from 'typeorm';
import { WebhookFairDelivery1763900600000 } from '../../src/database/migrations/1763900600000-webhook-fair-delivery.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint, publishFinished } from './webhook-test-kit.js';

/** The attempts logged before failures were categories are rewritten to theirs, and no raw error can be logged again. */
describe('the migration of the deliveries log to failure categories', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
  });

  afterAll(async () => {
    await app?.close();
  });

  it('rewrites raw errors to categories and refuses new ones', async () => {
    const { tenant } = await partnerWithEndpoint(app, 'http://127.0.0.1:9/hook');
    const event = await publishFinished(app, tenant);
    const runner = app.app.get(DataSource).createQueryRunner();
    const migration = new WebhookFairDelivery1763900600000();
    try {
      await migration.down(runner);
      const [{ id }] = await runner.query(`SELECT id FROM webhook_deliveries WHERE event_id = $1`, [event.event_id]);
      const logged: [number | null, string | null, string | null][] = [
        [null, 'timed out after 10000 ms', 'timeout'],
        [null, 'connect ECONNREFUSED 10.0.0.5:6379', 'connection_refused'],
        [null, 'read ECONNRESET', 'connection_refused'],
        [null, 'getaddrinfo ENOTFOUND intranet.example', 'dns'],
        [null, 'self-signed certificate', 'tls'],
        [null, 'refused: rebind.example resolves to 127.0.0.1, a loopback address', 'connection_refused'],
        [302, 'redirects are not followed', 'http_status'],
        [500, null, 'http_status'],
        [200, null, null],
      ];
      for (const [statusCode, error] of logged) {
        await runner.query(`INSERT INTO webhook_delivery_attempts (delivery_id, status_code, duration_ms, error, attempted_at) VALUES ($1, $2, 5, $3, now())`, [
          id,
          statusCode,
          error,
        ]);
      }
      await migration.up(runner);

      const rows = await runner.query(`SELECT status_code, error FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY id`, [id]);
      expect(rows.map((row: { status_code: number | null; error: string | null }) => [row.status_code, row.error])).toEqual(
        logged.map(([statusCode, , category]) => [statusCode, category]),
      );
      await expect(
        runner.query(`INSERT INTO webhook_delivery_attempts (delivery_id, duration_ms, error, attempted_at) VALUES ($1, 5, 'connect ECONNREFUSED', now())`, [
          id,
        ]),
      ).rejects.toThrow(/webhook_delivery_attempts_error_check/);
    } finally {
      await runner.release();
    }
  });
});
