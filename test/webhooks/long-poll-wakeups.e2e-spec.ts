import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { PartnerCredentialsService } from '../../src/modules/identity/index.js';
import { WebhookEventPublisher } from '../../src/modules/webhooks/index.js';
import type { Tenant } from '../../src/shared/tenancy/tenant.js';
import { msUntil } from '../support/replicas.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * DECISIONS 22: an event wakes its partner's waiting polls with one database read, however
 * many are waiting, and a credential holds at most 10 waiting polls at once.
 *
 * A poll holds its place, joins its partner's room (which then listens), and only then reads
 * the feed: once its read is logged, it is waiting. The tests wait for those reads rather
 * than for a time, which a loaded machine may not keep.
 */
const t = useTestApp();
let feedReads: string[];

beforeAll(async () => {
  const logger = t.app.get(DataSource).logger;
  const logQuery = logger.logQuery.bind(logger);
  feedReads = [];
  jest.spyOn(logger, 'logQuery').mockImplementation((sql, ...rest) => {
    if (/FROM webhook_events WHERE partner_id = \$1 AND environment = \$2 AND seq >/.test(sql)) feedReads.push(sql);
    return logQuery(sql, ...rest);
  });
});

async function credentialsOf(count: number) {
  const first = await t.partner({ scopes: ['platform:webhooks:manage'] });
  const tenant: Tenant = { partnerId: first.partner_id, environment: 'live' };
  const tokens = [await t.token(first)];
  for (let i = 1; i < count; i++) {
    tokens.push(await t.token(await t.app.get(PartnerCredentialsService).createCredential(first.partner_id, ['platform:webhooks:manage'], 'live')));
  }
  return { tenant, tokens };
}

/** Resolves once `count` feed reads were issued since `feedReads` was last emptied. */
const feedReadsReach = (count: number) => msUntil(async () => feedReads.length >= count, 30_000);
const poll = (token: string, query: string) => t.inject({ method: 'GET', url: `/platform/v1/events?${query}`, headers: bearer(token) });
const publish = (tenant: Tenant, i: number) =>
  t.app.get(WebhookEventPublisher).novelFinished(tenant, { subscriber_id: `sub-${i}`, novel_id: 'the-heir', choice_id: 'stay' }, new Date());

it('refuses an 11th waiting poll of one credential with 429 and Retry-After, while another credential may still wait', async () => {
  const { tenant, tokens } = await credentialsOf(2);
  feedReads.length = 0;
  const waiting = Array.from({ length: 10 }, () => poll(tokens[0], 'after=0&wait=20'));
  await feedReadsReach(10);
  const refused = await poll(tokens[0], 'after=0&wait=20');
  expect({ status: refused.statusCode, error: refused.json().error, retryAfter: refused.headers['retry-after'] }).toEqual({
    status: 429,
    error: 'rate_limited',
    retryAfter: expect.stringMatching(/^\d+$/),
  });
  // Without wait, the credential still reads.
  expect((await poll(tokens[0], 'after=0')).statusCode).toBe(200);
  feedReads.length = 0;
  const other = poll(tokens[1], 'after=0&wait=20');
  await feedReadsReach(1);
  await publish(tenant, 1);
  for (const response of await Promise.all([...waiting, other])) expect(response.json().data).toHaveLength(1);
  // Answered polls give their places back.
  const again = poll(tokens[0], 'after=1&wait=1');
  expect((await again).statusCode).toBe(200);
});

it('wakes 40 waiting polls of one partner with one read for the event, each answered with it', async () => {
  const { tenant, tokens } = await credentialsOf(4);
  await publish(tenant, 0);
  await publish(tenant, 1);
  // Polls waiting at the head (after=2), from four credentials, with different limits.
  feedReads.length = 0;
  const waiting = tokens.flatMap((token) => Array.from({ length: 10 }, (_, i) => poll(token, `after=2&wait=20&limit=${1 + (i % 3)}`)));
  await feedReadsReach(40);
  feedReads.length = 0;
  const event = await publish(tenant, 2);
  const answers = await Promise.all(waiting);
  expect(feedReads).toHaveLength(1);
  for (const response of answers) {
    expect(response.json()).toEqual({ data: [expect.objectContaining({ seq: 3, event_id: event.event_id })], next_after: 3, has_more: false });
  }
});
