import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { PartnerCredentialsService, type IssuedCredential } from '../../src/modules/identity/index.js';
import { daysAgo, reader } from '../audio/audio-fixtures.js';
import { importCatalog, manifest } from '../fixtures/catalog-fixture.js';
import { partnerClient } from '../fixtures/partner-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { kidsServiceToken } from '../support/tokens.js';
import { publishFinished } from '../webhooks/webhook-test-kit.js';
import { CHECKS, FailureLog, dataDependentRefusal, errorSignature, type Check, type Exchange } from './conformance-checks.js';
import { OpenApiDocument, isForm, payloadOf, requestProblems, requiresAuth, urlOf, type FuzzRequest, type Operation } from './openapi-model.js';
import {
  guardedFilter,
  normalize,
  positiveArbitrary,
  propertyViolations,
  toText,
  violations,
  withViolation,
  type GenerationOptions,
  type Schema,
} from './schema-arbitraries.js';

/**
 * A property-based API conformance fuzzer driven by the served OpenAPI document, in the
 * spirit of Schemathesis' default checks. For every operation (but /docs), it sends
 * requests generated from the document:
 * - positive: satisfying every documented schema, with the right credentials;
 * - negative: an otherwise valid request with exactly one documented constraint broken,
 *   with a valid all-scope credential of the right environment;
 * - without credentials and with garbage ones, where the document demands some;
 * and checks every answer (no 5xx; documented status, content type, required headers and
 * body schema), that negative requests are refused with a 4xx, that positive ones are not
 * refused with a 400, and that credentials are not ignored (401).
 *
 * FUZZ_RUNS: cases per operation and kind (default 20). FUZZ_SEED: replay a run (the seed
 * is printed in every failure report); FUZZ_SEED=random explores new cases. The default
 * seed is fixed so that CI judges every change on the same requests.
 *
 * Values the document could never make meet data (novel slugs, subscriber ids, webhook
 * endpoint and event ids) are mixed with real ones, so that many requests get past
 * lookups; the 404s of the others are documented.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const SEED = process.env.FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED ?? 20261126);

/** FUZZ_DEBUG=1: the time each operation takes, on stderr; FUZZ_DUMP=<file>: the served document, written there. */
const DEBUG = Boolean(process.env.FUZZ_DEBUG);

/** An answer slower than this is a failure (the longest documented wait, a long poll, is capped at 1 s here). */
const ANSWER_TIMEOUT_MS = 10_000;

const SUBSCRIBER = 'fuzz-reader-1';
/** Entitlement writes go to a subscriber of their own: a canceled reader would 403 everything after. */
const ENTITLEMENT_SUBSCRIBER = 'fuzz-entitled-2';
const NOVELS = ['the-heir', 'letters-from-paraty'];
const CHOICES = ['stay', 'leave', 'reply', 'burn'];
const PUBLIC_WEBHOOK_URL = 'https://93.184.215.14/hooks/reading';

let t: TestApp;
let document: OpenApiDocument;
let log: FailureLog;
let credential: IssuedCredential;
let tokens: { live: string; sandbox: string; kids: string };
let fixtures: { endpointId: string; eventId: string; clockId: string };
const generatorBugs: string[] = [];
let skippedNegatives = 0;
let elapsedSeconds = 0;

const NOW = new Date();
const DAY = 86_400_000;
const utcDay = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const TODAY = utcDay(NOW);
const MONTH_START = new Date(Date.UTC(NOW.getUTCFullYear(), NOW.getUTCMonth(), 1));

let generation: GenerationOptions;

beforeAll(async () => {
  const started = Date.now();
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  const served = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  if (process.env.FUZZ_DUMP) writeFileSync(process.env.FUZZ_DUMP, JSON.stringify(served, null, 2));
  document = new OpenApiDocument(served);
  log = new FailureLog(document);
  generation = {
    resolveRef: document.resolveRef,
    // Valid, and clear of the document's prose limits relative to now (effective_at at most
    // 72 hours back in live and 5 minutes ahead; started_at in the past; report periods of at
    // most 366 days ending by today): instants of the last two days, dates of the last year.
    dateTimeWindow: { from: new Date(NOW.getTime() - 2 * DAY), to: new Date(NOW.getTime() - 60_000) },
    dateWindow: { from: new Date(TODAY.getTime() - 365 * DAY), to: TODAY },
    extraProperties: true,
  };
  await seed();

  const operations = document.operations.filter((operation) => !operation.path.startsWith('/docs'));
  log.countRequiredHeaders(operations);
  // Destructive operations last, so that they do not take the real data from the others.
  const ordered = [...operations.filter((operation) => operation.method !== 'DELETE'), ...operations.filter((operation) => operation.method === 'DELETE')];
  for (const [index, operation] of ordered.entries()) {
    const before = Date.now();
    if (DEBUG) process.stderr.write(`${operation.id} …`);
    await fuzz(operation, SEED + index * 7919);
    if (DEBUG) process.stderr.write(` ${Date.now() - before} ms\n`);
  }
  elapsedSeconds = Math.round((Date.now() - started) / 1000);
}, 600_000);

afterAll(() => t?.close());

/** A partner with live and sandbox credentials, a catalog in both, an entitled reader in both, a webhook endpoint and an event. */
async function seed(): Promise<void> {
  credential = await t.partner();
  const sandboxCredential = await t.app.get(PartnerCredentialsService).createCredential(credential.partner_id, undefined, 'sandbox');
  tokens = { live: await t.token(credential), sandbox: await t.token(sandboxCredential), kids: await kidsServiceToken(t, credential) };
  const demo = JSON.parse(readFileSync('catalog/demo/manifest.json', 'utf8')) as { categories: object[]; novels: { id: string }[] };
  const novels = demo.novels.filter((novel) => NOVELS.includes(novel.id));
  for (const environment of ['live', 'sandbox'] as const) {
    await importCatalog(t, manifest(novels, demo.categories), environment, 'catalog/demo');
    const client = await partnerClient(t, { environment, partnerId: credential.partner_id });
    await reader(t, client, SUBSCRIBER, 'the-heir', { startedAt: daysAgo(30) });
    await client.entitle(SUBSCRIBER, { product: 'textapp' });
    await client.entitle(SUBSCRIBER, { product: 'kidsapp' });
    await client.entitle(ENTITLEMENT_SUBSCRIBER, { product: 'textapp' });
    const position = await client.call('PUT', `/subscribers/${SUBSCRIBER}/playback-position`, {
      novel_id: 'the-heir',
      chapter_id: 'the-heir-ch1',
      position_seconds: 30,
    });
    if (position.statusCode !== 200) throw new Error(`seeding a playback position failed: ${position.statusCode} ${position.body}`);
  }
  const created = await t.inject({
    method: 'POST',
    url: '/platform/v1/webhook-endpoints',
    headers: { authorization: `Bearer ${tokens.live}` },
    payload: { url: PUBLIC_WEBHOOK_URL, events: ['novel.finished', 'chapter.unlocked'] },
  });
  if (created.statusCode !== 201) throw new Error(`seeding a webhook endpoint failed: ${created.statusCode} ${created.body}`);
  const event = await publishFinished(t, { partnerId: credential.partner_id, environment: 'live' }, SUBSCRIBER);
  const clock = await t.inject({
    method: 'POST',
    url: '/platform/v1/test-clocks',
    headers: { authorization: `Bearer ${tokens.sandbox}` },
    payload: { frozen_time: NOW.toISOString() },
  });
  if (clock.statusCode !== 201) throw new Error(`seeding a test clock failed: ${clock.statusCode} ${clock.body}`);
  fixtures = { endpointId: created.json().id, eventId: event.event_id, clockId: clock.json().id };
}

// ---------------------------------------------------------------------------------------
// Real values: where a documented value would never meet data.

/** Real values for a parameter or top-level body property, if the fixtures have some. */
function realValues(operation: Operation, where: 'path' | 'query' | 'body', name: string): unknown[] | undefined {
  const path = operation.path;
  if (name === 'chapterNumber') return ['1', '2', '3'];
  if (where === 'path' && name === 'id') {
    if (path.includes('/novels/{id}')) return NOVELS;
    if (/\/subscribers?\/\{id\}/.test(path)) return [SUBSCRIBER];
    if (path.includes('/webhook-endpoints/{id}')) return [fixtures.endpointId];
    if (path.includes('/test-clocks/{id}')) return [fixtures.clockId];
  }
  if (name === 'frozen_time') return [new Date(NOW.getTime() + 3600_000).toISOString()];
  if (name === 'event_id') return [fixtures.eventId];
  if (name === 'novel_id') return NOVELS;
  if (name === 'subscriber_id') return path.endsWith('/entitlements') ? [ENTITLEMENT_SUBSCRIBER] : [SUBSCRIBER];
  if (name === 'choice_id') return CHOICES;
  if (name === 'chapter_id') return NOVELS.flatMap((novel) => [`${novel}-ch1`, `${novel}-ch2`]);
  // (The first of each list is the likeliest accepted: the novel the reader has opened, one of its endings.)
  if (name === 'category_id') return ['romance', 'mystery'];
  if (name === 'tag') return ['drama'];
  if (name === 'period') return [isoDay(NOW).slice(0, 7)];
  if (name === 'url' && path.endsWith('/webhook-endpoints')) return [PUBLIC_WEBHOOK_URL];
  return undefined;
}

/**
 * Positive requests: the schema's arbitrary, or (twice as likely) one of the real values
 * that satisfy it. Bases of negative and credential-less requests: the first (most likely
 * accepted) real value when there is one, so that nothing but the change under test can
 * make the service refuse them.
 */
function withRealValues(
  operation: Operation,
  where: 'path' | 'query' | 'body',
  name: string,
  schema: Schema,
  carrier: 'text' | 'json',
  mode: Mode,
  options = generation,
): fc.Arbitrary<unknown> {
  const generated = carrier === 'text' ? positiveArbitrary(schema, options).map(toText) : positiveArbitrary(schema, options);
  const real = (realValues(operation, where, name) ?? []).filter((value) => {
    const typed = carrier === 'text' && normalize(schema, generation).type === 'integer' ? Number(value) : value;
    return document.validate(schema, typed) === null;
  });
  if (real.length === 0) return generated;
  if (mode === 'base') return fc.constant(real[0]);
  return fc.oneof({ weight: 1, arbitrary: generated }, { weight: 2, arbitrary: fc.constantFrom(...real) });
}

/** positive: anything valid; base: valid and minimal (required parts only, real values first). */
type Mode = 'positive' | 'base';

/**
 * Whether a value can address an operation as a path segment: "", "." and ".." cannot (an
 * empty segment is another path, and clients resolve dot segments away, RFC 3986 5.2.4),
 * whatever the parameter's schema admits. Schemathesis skips them too.
 */
const addressable = (value: string) => value !== '' && value !== '.' && value !== '..';

// ---------------------------------------------------------------------------------------
// Credentials: the right environment for each mount.

function credentialsFor(operation: Operation): fc.Arbitrary<{ authorization?: string; authLabel: string }> {
  if (!requiresAuth(operation)) return fc.constant({ authLabel: 'none (the document declares none needed)' });
  const schemes = operation.security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.includes('clientBasic')) {
    const basic = Buffer.from(`${encodeURIComponent(credential.client_id)}:${encodeURIComponent(credential.client_secret)}`).toString('base64');
    return fc.constant({ authorization: `Basic ${basic}`, authLabel: 'Basic, live credential' });
  }
  const options: { authorization: string; authLabel: string }[] = [];
  if (schemes.includes('platform')) {
    const sandbox = operation.path.startsWith('/sandbox/') || operation.sandboxOnly;
    options.push(
      sandbox
        ? { authorization: `Bearer ${tokens.sandbox}`, authLabel: 'sandbox platform token' }
        : { authorization: `Bearer ${tokens.live}`, authLabel: 'live platform token' },
    );
  }
  if (schemes.includes('kids')) options.push({ authorization: `Bearer ${tokens.kids}`, authLabel: 'kids issuer token' });
  if (options.length === 0) throw new Error(`${operation.id}: no credential for the security schemes ${schemes.join(', ')}`);
  return fc.constantFrom(...options);
}

const GARBAGE = {
  bearer: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.x', authLabel: 'garbage bearer token' },
  basic: { authorization: `Basic ${Buffer.from('garbage:garbage').toString('base64')}`, authLabel: 'garbage Basic credentials' },
};

// ---------------------------------------------------------------------------------------
// Hooks: constraints the document states in prose that JSON Schema cannot express, kept by
// generated valid requests (as Schemathesis' map_* hooks would). Each keeps the request
// valid under the document; the self-check below verifies it.

const HOOKS: { name: string; apply(operation: Operation, request: FuzzRequest): FuzzRequest }[] = [
  {
    // "period_end before period_start, more than 366 days" (cross-field); absent, the period
    // defaults to "the current UTC month to today".
    name: 'period_start ≤ period_end, at most 366 days',
    apply(operation, request) {
      if (
        !operation.parameters.some((parameter) => parameter.name === 'period_start') ||
        !operation.parameters.some((parameter) => parameter.name === 'period_end')
      )
        return request;
      const query = { ...request.query };
      const { period_start: start, period_end: end } = query;
      if (start && end) {
        const [first, last] = [start, end].sort();
        query.period_start = first;
        query.period_end = last;
        if (Date.parse(last) - Date.parse(first) > 365 * DAY) query.period_start = isoDay(new Date(Date.parse(last) - 365 * DAY));
      } else if (end && Date.parse(end) < MONTH_START.getTime()) {
        query.period_end = isoDay(TODAY);
      }
      return { ...request, query };
    },
  },
  {
    // The children's summary: "whole UTC calendar months (at most 12), each ended at least 72
    // hours ago" (after the hook above): each end moved out to its month's edge, the end
    // back to the latest settled month, the start to at most 11 months before it.
    name: "children's period: whole settled months, at most 12",
    apply(operation, request) {
      const { period_start: start, period_end: end } = request.query;
      if (operation.path !== '/kids/v1/engagement/summary' || !start || !end) return request;
      const monthOf = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, 1);
      const settled = new Date(NOW.getTime() - 72 * 3600_000);
      const lastSettled = Date.UTC(settled.getUTCFullYear(), settled.getUTCMonth() - 1, 1);
      const last = new Date(Math.min(monthOf(end), lastSettled));
      const first = new Date(Math.max(Math.min(monthOf(start), last.getTime()), Date.UTC(last.getUTCFullYear(), last.getUTCMonth() - 11, 1)));
      const lastDay = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 0));
      return { ...request, query: { ...request.query, period_start: isoDay(first), period_end: isoDay(lastDay) } };
    },
  },
  {
    // billing-usage: period is "a UTC month that has begun" (relative to now).
    name: 'period not after the current month',
    apply(_operation, request) {
      const current = isoDay(NOW).slice(0, 7);
      if (request.query.period === undefined || !/^\d{4}-\d{2}$/.test(request.query.period) || request.query.period <= current) return request;
      return { ...request, query: { ...request.query, period: current } };
    },
  },
  {
    // Webhook endpoints: "Live endpoints: https on port 443 or 8443, to a host that resolves
    // to public addresses only" (per environment, and DNS-dependent): live URLs keep their
    // generated path and query, on https://<a public address>.
    name: 'live webhook URL on https, port 443, public host',
    apply(operation, request) {
      const body = request.body?.value as Record<string, unknown> | undefined;
      if (
        !operation.path.startsWith('/platform/') ||
        !request.authLabel.startsWith('live') ||
        !body ||
        typeof body !== 'object' ||
        typeof body.url !== 'string'
      )
        return request;
      let url: URL;
      try {
        url = new URL(body.url);
      } catch {
        return request;
      }
      const rewritten = `${new URL(PUBLIC_WEBHOOK_URL).origin}${url.pathname}${url.search}${url.hash}`;
      if (rewritten.length > 2048) return request;
      return { ...request, body: { ...request.body!, value: { ...body, url: rewritten } } };
    },
  },
  {
    // Long polling: `wait` seconds of waiting on an empty feed. Timing only: at most 1.
    name: 'wait ≤ 1 second',
    apply(_operation, request) {
      if (request.query.wait === undefined || Number(request.query.wait) <= 1) return request;
      return { ...request, query: { ...request.query, wait: '1' } };
    },
  },
  {
    // "A chapter of novel_id in the player catalog format {novel_id}-ch{n}" (cross-field):
    // a chapter_id of that form is made a chapter of the request's novel_id.
    name: 'chapter_id of novel_id',
    apply(_operation, request) {
      const body = request.body?.value as Record<string, unknown> | undefined;
      if (!body || typeof body !== 'object' || typeof body.chapter_id !== 'string' || typeof body.novel_id !== 'string') return request;
      const match = /-ch([1-9][0-9]*)$/.exec(body.chapter_id);
      if (!match) return request;
      return { ...request, body: { ...request.body!, value: { ...body, chapter_id: `${body.novel_id}-ch${match[1]}` } } };
    },
  },
  {
    // The token endpoints: client_id and client_secret "only when HTTP Basic is not used";
    // generated requests use the declared scheme (Basic), so they leave them out.
    name: 'no client_id/client_secret with Basic',
    apply(_operation, request) {
      if (!request.authorization?.startsWith('Basic ') || !request.body || typeof request.body.value !== 'object' || request.body.value === null)
        return request;
      const { client_id: _id, client_secret: _secret, ...rest } = request.body.value as Record<string, unknown>;
      return { ...request, body: { ...request.body, value: rest } };
    },
  },
];

const applyHooks = (operation: Operation, request: FuzzRequest) => HOOKS.reduce((current, hook) => hook.apply(operation, current), request);

// ---------------------------------------------------------------------------------------
// Requests.

/** Valid requests (see Mode), with the credentials of the mount unless given. */
function validRequests(operation: Operation, mode: Mode, credentials = credentialsFor(operation)): fc.Arbitrary<FuzzRequest> {
  const options = mode === 'base' ? { ...generation, extraProperties: false } : generation;
  const path: Record<string, fc.Arbitrary<unknown>> = {};
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredQuery: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in === 'path') {
      path[parameter.name] = guardedFilter(
        withRealValues(operation, 'path', parameter.name, parameter.schema, 'text', mode, options),
        (value) => addressable(String(value)),
        `an addressable ${parameter.name}`,
      );
    }
    if (parameter.in === 'query' && (parameter.required || mode === 'positive')) {
      query[parameter.name] = withRealValues(operation, 'query', parameter.name, parameter.schema, 'text', mode, options);
      if (parameter.required) requiredQuery.push(parameter.name);
    }
  }
  let body: fc.Arbitrary<FuzzRequest['body']> = fc.constant(undefined);
  if (operation.body) {
    const { mediaType, schema } = operation.body;
    const form = isForm(mediaType);
    const normalized = normalize(schema, generation);
    const properties: Record<string, Schema> = normalized.properties ?? {};
    const required = new Set<string>(normalized.required ?? []);
    const real: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of Object.entries(properties)) {
      if (realValues(operation, 'body', name)) real[name] = withRealValues(operation, 'body', name, property, form ? 'text' : 'json', mode, options);
    }
    const value = fc.tuple(positiveArbitrary(schema, options), fc.record(real)).map(([generated, preferred]) => {
      if (generated === null || typeof generated !== 'object' || Array.isArray(generated)) return generated;
      const merged: Record<string, unknown> = { ...generated };
      for (const [name, candidate] of Object.entries(preferred)) if (name in merged) merged[name] = candidate;
      if (mode === 'base') for (const name of Object.keys(merged)) if (!required.has(name)) delete merged[name];
      return form ? Object.fromEntries(Object.entries(merged).map(([name, field]) => [name, toText(field)])) : merged;
    });
    const present = value.map((generated) => ({ mediaType, value: generated }));
    body = operation.body.required || mode === 'base' ? present : fc.option(present, { nil: undefined });
  }
  return fc
    .record({
      pathParams: fc.record(path),
      query: fc.record(query, { requiredKeys: requiredQuery }),
      body,
      credentials,
    })
    .map(({ pathParams, query: queryValues, body: bodyValue, credentials: { authorization, authLabel } }) =>
      applyHooks(operation, {
        pathParams: pathParams as Record<string, string>,
        query: queryValues as Record<string, string>,
        ...(bodyValue && { body: bodyValue }),
        ...(authorization && { authorization }),
        authLabel,
      }),
    );
}

/** One documented constraint broken in an otherwise valid request. */
interface Mutation {
  description: string;
  apply: fc.Arbitrary<(request: FuzzRequest) => FuzzRequest>;
}

function mutations(operation: Operation): Mutation[] {
  const found: Mutation[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const where = parameter.in === 'path' ? 'pathParams' : 'query';
    for (const violation of violations(parameter.schema, generation, 'text', `${parameter.in}.${parameter.name}`)) {
      if (!violation.values) continue;
      // An empty path segment is another URL (another operation, or none): not sendable.
      if (parameter.in === 'path' && violation.description.startsWith('string shorter than minLength 1 ')) continue;
      const values =
        parameter.in === 'path'
          ? guardedFilter(violation.values.map(toText), addressable, `an addressable value for ${violation.description}`)
          : violation.values;
      const replace = violation.fromCurrent ?? values.map((value) => () => value);
      found.push({
        description: violation.description,
        apply: replace.map((make) => (request: FuzzRequest) => ({
          ...request,
          [where]: { ...request[where], [parameter.name]: toText(make(request[where][parameter.name])) },
        })),
      });
    }
    if (parameter.in === 'query' && parameter.required) {
      found.push({
        description: `required query parameter ${parameter.name} missing`,
        apply: fc.constant((request: FuzzRequest) => {
          const { [parameter.name]: _dropped, ...rest } = request.query;
          return { ...request, query: rest };
        }),
      });
    }
  }
  if (operation.body) {
    const { mediaType, schema, required } = operation.body;
    const form = isForm(mediaType);
    const bodyViolations = form ? propertyViolations(schema, generation, 'text', 'body') : violations(schema, generation, 'json', 'body');
    for (const violation of bodyViolations) {
      const replace = violation.fromCurrent ?? (violation.values ? violation.values.map((value) => () => value) : fc.constant(undefined));
      found.push({
        description: violation.description,
        apply: replace.map((make) => (request: FuzzRequest) => {
          const current = request.body?.value ?? {};
          const chosen = make ? { value: form ? toText(make(valueAt(current, violation.path))) : make(valueAt(current, violation.path)) } : undefined;
          return { ...request, body: { mediaType, value: withViolation(current, violation.path, chosen) } };
        }),
      });
    }
    if (required) found.push({ description: 'required request body missing', apply: fc.constant((request: FuzzRequest) => ({ ...request, body: undefined })) });
  }
  return found;
}

// ---------------------------------------------------------------------------------------
// Sending and checking.

async function send(operation: Operation, request: FuzzRequest, purpose: string): Promise<Exchange> {
  const url = urlOf(operation, request);
  const { payload, contentType } = payloadOf(request);
  const headers: Record<string, string> = {};
  if (request.authorization) headers.authorization = request.authorization;
  if (contentType) headers['content-type'] = contentType;
  const injected = t.inject({ method: operation.method, url, headers, ...(payload !== undefined && { payload }) });
  let timer: NodeJS.Timeout | undefined;
  const response = await Promise.race([injected, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ANSWER_TIMEOUT_MS)))]);
  clearTimeout(timer);
  const sent = { operation, purpose, method: operation.method, url, authLabel: request.authLabel, contentType, payload };
  if (!response) {
    // No answer in time (a long poll that ignored `wait`'s maximum, say): a failure of its own.
    const exchange: Exchange = { ...sent, status: 0, headers: {}, body: `(no answer within ${ANSWER_TIMEOUT_MS} ms)`, bodyBytes: 0, sentValues: [] };
    log.fail('not_a_server_error', exchange, `no answer within ${ANSWER_TIMEOUT_MS} ms`);
    void injected.catch(() => undefined);
    return exchange;
  }
  const exchange: Exchange = {
    ...sent,
    status: response.statusCode,
    headers: response.headers,
    body: response.body,
    bodyBytes: response.rawPayload.length,
    sentValues: [...Object.values(request.pathParams), ...Object.values(request.query), ...stringsIn(request.body?.value)],
  };
  log.checkAnswer(exchange);
  return exchange;
}

/** The value at `path` inside a JSON value, if any. */
const valueAt = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>((current, key) => (current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined), value);

/** Every string inside a JSON value. */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value !== null && typeof value === 'object' ? Object.values(value).flatMap(stringsIn) : [];

const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, seed: number) => fc.sample(arbitrary, { numRuns, seed });

async function fuzz(operation: Operation, seed: number): Promise<void> {
  // negative_data_rejection, first: before positive requests fill limits (10 webhook endpoints,
  // 3 open novels) whose 409 would hide an accepted invalid request. Every mutation at least
  // once, RUNS cases at least.
  const found = mutations(operation);
  const perMutation = found.length === 0 ? 0 : Math.max(1, Math.ceil(RUNS / found.length));
  for (const [index, mutation] of found.entries()) {
    const cases = sample(fc.tuple(validRequests(operation, 'base', fc.constant(allScopeCredential(operation))), mutation.apply), perMutation, seed + 1 + index);
    for (const [base, apply] of cases) {
      const request = apply(base);
      if (requestProblems(document, operation, request).length === 0) {
        // The mutation happened to produce a valid request (e.g. a random string matching the pattern).
        skippedNegatives += 1;
        continue;
      }
      const exchange = await send(operation, request, `negative: ${mutation.description}`);
      if (exchange.status === 0) continue;
      if (exchange.status < 400 || exchange.status >= 500) log.fail('negative_data_rejection', exchange, `${mutation.description} → ${exchange.status}`);
    }
  }

  // positive_data_acceptance (refusals that depend on stored data, which the contract names, aside)
  for (const request of sample(validRequests(operation, 'positive'), RUNS, seed)) {
    const problems = requestProblems(document, operation, request);
    if (problems.length > 0) {
      generatorBugs.push(`${operation.id}: a generated valid request violates the document (${problems.join('; ')}): ${JSON.stringify(request).slice(0, 300)}`);
      continue;
    }
    const exchange = await send(operation, request, 'positive');
    log.recordPositive(exchange);
    if (exchange.status === 0) continue;
    if ((exchange.status === 400 || exchange.status === 422) && !dataDependentRefusal(operation, exchange))
      log.fail('positive_data_acceptance', exchange, errorSignature(exchange));
  }

  // ignored_auth
  if (requiresAuth(operation)) {
    const basic = operation.security.some((requirement) => 'clientBasic' in requirement);
    const variants: { authorization?: string; authLabel: string }[] = [{ authLabel: 'no credentials' }, basic ? GARBAGE.basic : GARBAGE.bearer];
    for (const [index, credentials] of variants.entries()) {
      const [base] = sample(validRequests(operation, 'base'), 1, seed + 1000 + index);
      // The token endpoints take credentials in the body as well: none there either.
      const request = applyHooks(operation, { ...base, authorization: credentials.authorization, authLabel: credentials.authLabel });
      if (!request.authorization) delete request.authorization;
      if (request.body && isForm(request.body.mediaType)) {
        const { client_id: _id, client_secret: _secret, ...rest } = request.body.value as Record<string, string>;
        request.body = { ...request.body, value: rest };
      }
      const exchange = await send(operation, request, credentials.authLabel);
      if (exchange.status !== 0 && exchange.status !== 401)
        log.fail('ignored_auth', exchange, `${credentials.authLabel} → ${exchange.status}${exchange.status < 300 ? ' (accepted!)' : ''}`);
    }
  }
}

/** The default test partner's credential has every scope; the environment follows the mount. */
function allScopeCredential(operation: Operation): { authorization?: string; authLabel: string } {
  const [first] = sample(credentialsFor(operation), 1, 1);
  return first;
}

// ---------------------------------------------------------------------------------------

const footer = () =>
  `(FUZZ_RUNS=${RUNS}, FUZZ_SEED=${SEED}; ${log.exchanges} requests in ${elapsedSeconds}s; ${skippedNegatives} mutations that happened to stay valid were not sent)`;

describe('OpenAPI conformance of the served document (Schemathesis-style checks)', () => {
  test('the generator sends only what it claims: valid requests satisfy the document', () => {
    if (generatorBugs.length > 0) throw new Error(`Generator bugs (not discrepancies of the service):\n${generatorBugs.slice(0, 20).join('\n')}`);
  });

  test.each(CHECKS.map((check) => [check]))('%s', (check: Check) => {
    if (check === 'positive_data_acceptance') {
      console.info(
        `${log.positiveCoverage(document.operations.filter((operation) => !operation.path.startsWith('/docs')))}\n` +
          `Response headers the document marks required: ${log.requiredHeadersDeclared}\n${footer()}`,
      );
    }
    let extra = '';
    if (check === 'response_headers_conformance' && log.requiredHeadersDeclared === 0)
      extra = ' (the document declares no response header as required, so this check has nothing to hold the service to yet)';
    const report = log.report(check, footer() + extra);
    if (report) throw new Error(report);
  });
});
