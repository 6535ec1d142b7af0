import { useTwoReplicas } from '../support/replicas.js';
import { bearer, type TestApp } from '../support/test-app.js';

/** Two replicas on one database, one Idempotency-Key raced through both: exactly one request is processed. */
const replicas = useTwoReplicas({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });

it('creates one webhook endpoint for one key sent at once through two replicas', async () => {
  const credential = await replicas.first.partner({ scopes: ['platform:webhooks:manage'] });
  const token = await replicas.first.token(credential);
  const create = (replica: TestApp) =>
    replica.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: { ...bearer(token), 'idempotency-key': 'raced' },
      payload: { url: 'http://127.0.0.1:9/raced', events: ['novel.finished'] },
    });
  const answers = await Promise.all(
    [replicas.first, replicas.second, replicas.first, replicas.second, replicas.first, replicas.second, replicas.first, replicas.second].map(create),
  );

  const { rows } = await replicas.db.query(`SELECT id FROM webhook_endpoints WHERE partner_id = $1`, [credential.partner_id]);
  expect(rows).toHaveLength(1);
  // Every answer is the one creation, first sent or replayed, or "still in use".
  const created = answers.filter((answer) => answer.statusCode === 201);
  expect(answers.every((answer) => answer.statusCode === 201 || answer.statusCode === 409)).toBe(true);
  expect(created.filter((answer) => answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  expect(new Set(created.map((answer) => answer.json().id))).toEqual(new Set([rows[0].id]));
  const later = await create(replicas.second);
  expect(later.headers['idempotent-replayed']).toBe('true');
  expect(later.json().id).toBe(rows[0].id);
});
