import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/bootstrap/create-app.js';
import { loadConfig } from '../../src/config/app-config.js';
import { PartnerCredentialsService } from '../../src/modules/identity/index.js';
import { WAITING_POLLS_PER_CREDENTIAL, WebhookEventPublisher } from '../../src/modules/webhooks/index.js';
import { freePort } from '../../src/shared/net/free-port.js';
import type { Tenant } from '../../src/shared/tenancy/tenant.js';

/**
 * What an event costs when many long polls wait for it (DECISIONS 22, issue 25): `polls`
 * waiting polls of one partner (10 per credential), then `events` events published one at
 * a time; each is answered to every poll. Counted: the feed reads the service made per
 * event, and the time from the commit to the last poll's answer.
 */
export interface LongPollCheck {
  polls: number;
  events: number;
  feedReadsPerEvent: number;
  lastAnswerMs: { median: number; max: number };
}

export const LONG_POLL_TARGETS = { feedReadsPerEvent: 1, lastAnswerMs: 1000 };

const FEED_READ = /FROM webhook_events WHERE partner_id = \$1 AND environment = \$2 AND seq >/;

export async function measureLongPolls(url: string, env: Record<string, string>, polls: number, events: number): Promise<LongPollCheck> {
  const port = await freePort();
  const config = loadConfig({ ...env, DATABASE_URL: url, PORT: String(port), LOG_LEVEL: 'error', WEBHOOK_WORKER: 'false' });
  const app = await createApp(config, url);
  await app.listen({ port, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${port}`;
  let reads = 0;
  const logger = app.get(DataSource).logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (sql, ...rest) => {
    if (FEED_READ.test(sql)) reads++;
    return logQuery(sql, ...rest);
  };
  try {
    const { tenant, tokens } = await credentials(app.get(PartnerCredentialsService), origin, Math.ceil(polls / WAITING_POLLS_PER_CREDENTIAL));
    const perEventReads: number[] = [];
    const answerTimes: number[] = [];
    for (let seq = 0; seq < events; seq++) {
      const readsBefore = reads;
      const waiting = Array.from({ length: polls }, (_, i) =>
        fetch(`${origin}/platform/v1/events?after=${seq}&wait=30`, { headers: { authorization: `Bearer ${tokens[i % tokens.length]}` } }).then(
          (r) => r.json() as Promise<{ data?: unknown[] }>,
        ),
      );
      // Every poll has made its own first read and waits. A poll answered before the event
      // (refused, or failed) would never read: say so instead of waiting for it forever.
      let answered = 0;
      for (const poll of waiting)
        poll.then(
          () => answered++,
          () => answered++,
        );
      const deadline = Date.now() + 30_000;
      while (reads < readsBefore + polls) {
        if (answered > 0) throw new Error(`long polls: ${answered} of ${polls} answered before the event was written`);
        if (Date.now() > deadline) throw new Error(`long polls: ${reads - readsBefore} of ${polls} read the feed within 30 s`);
        await sleep(20);
      }
      await sleep(200);
      const before = reads;
      const committed = performance.now();
      await app.get(WebhookEventPublisher).novelFinished(tenant, { subscriber_id: `bench-${seq}`, novel_id: 'bench', choice_id: 'stay' }, new Date());
      const pages = await Promise.all(waiting);
      answerTimes.push(performance.now() - committed);
      perEventReads.push(reads - before);
      if (pages.some((page) => page.data?.length !== 1)) throw new Error('a waiting poll was not answered with the event');
    }
    return {
      polls,
      events,
      feedReadsPerEvent: Math.max(...perEventReads),
      lastAnswerMs: { median: Math.round(median(answerTimes)), max: Math.round(Math.max(...answerTimes)) },
    };
  } finally {
    await app.close();
  }
}

async function credentials(service: PartnerCredentialsService, origin: string, count: number): Promise<{ tenant: Tenant; tokens: string[] }> {
  const first = await service.createPartner('bench long polls', ['platform:webhooks:manage']);
  const issued = [first];
  for (let i = 1; i < count; i++) issued.push(await service.createCredential(first.partner_id, ['platform:webhooks:manage'], 'live'));
  const tokens = await Promise.all(
    issued.map(async (credential) => {
      const response = await fetch(`${origin}/platform/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
      });
      return ((await response.json()) as { access_token: string }).access_token;
    }),
  );
  return { tenant: { partnerId: first.partner_id, environment: 'live' }, tokens };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
