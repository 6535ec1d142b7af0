import { randomUUID } from 'node:crypto';
import { SETTLEMENT_HOURS } from '../../src/modules/kids-engagement/index.js';
import type { BenchCredential, ReaderSample, SeededData } from './seed.js';

/** One request as autocannon sends it. */
export interface BenchRequest {
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a scenario draws its requests from: many tokens, subscribers and novels. */
export interface Rotation {
  tokens: readonly string[];
  credentials: readonly BenchCredential[];
  readers: readonly ReaderSample[];
  novelIds: readonly string[];
  period: SeededData['period'];
}

/**
 * The limit probes (bench/probes): what a bare Fastify answers with no database, with one
 * primary-key SELECT, with one upsert. The fastest an endpoint doing that work could be here.
 */
export type LimitProbeKey = 'json' | 'json-page' | 'pk-select' | 'upsert';

/** A hot endpoint under load. */
export interface Scenario {
  /** Short name, for --only and the chart. */
  key: string;
  /** The route as the contract names it. */
  label: string;
  /** The limit probe that bounds this endpoint: the least work it must do per request. */
  bound?: LimitProbeKey;
  /**
   * A second probe to compare with, doing the same work as `bound` with an answer of this
   * endpoint's size (the catalog page: json-page): what is left once the bytes are paid.
   */
  sizedBound?: LimitProbeKey;
  /** Connections for this endpoint (the heavy report runs with fewer). */
  connections?: number;
  /**
   * Requests sent one at a time after the load, for a latency target: what one caller
   * waits for the answer, without the queueing that concurrent load adds on a small machine.
   */
  singleClientRequests?: number;
  /**
   * The scenario whose request this one repeats with one more feature (an Idempotency-Key):
   * its statement target is then at most one statement more than that one's.
   */
  sameWorkAs?: string;
  /** The i-th request of a run. Successive requests move across tokens, subscribers and novels. */
  request(i: number, rotation: Rotation): BenchRequest;
}

const bearer = (rotation: Rotation, i: number) => `Bearer ${rotation.tokens[i % rotation.tokens.length]}`;
// Different strides, so that a token does not always travel with the same subscriber.
const reader = (rotation: Rotation, i: number) => rotation.readers[(i * 7_919) % rotation.readers.length];
const get = (path: string, authorization: string): BenchRequest => ({ method: 'GET', path, headers: { authorization } });

const positionPut = (i: number, r: Rotation): BenchRequest => {
  const { subscriberId, novelId, chapterNumber } = reader(r, i);
  return {
    method: 'PUT',
    path: `/v1/subscribers/${subscriberId}/playback-position`,
    headers: { authorization: bearer(r, i), 'content-type': 'application/json' },
    body: JSON.stringify({ novel_id: novelId, chapter_id: `${novelId}-ch${chapterNumber}`, position_seconds: i % 3600 }),
  };
};
// Idempotency keys are never reused within a bench process: each round restarts i at 0, and
// a repeated key would measure replays instead of first requests.
const RUN = randomUUID();
let keysSent = 0;

export const SCENARIOS: readonly Scenario[] = [
  {
    key: 'novels',
    label: 'GET /v1/novels',
    bound: 'json',
    sizedBound: 'json-page',
    request: (i, r) => get(`/v1/novels?page=${1 + (i % Math.max(1, Math.floor(r.novelIds.length / 20)))}`, bearer(r, i)),
  },
  {
    key: 'categories',
    label: 'GET /v1/categories',
    bound: 'json',
    request: (i, r) => get('/v1/categories', bearer(r, i)),
  },
  {
    key: 'chapters-anonymous',
    label: 'GET /v1/novels/{id}/chapters',
    bound: 'json',
    request: (i, r) => get(`/v1/novels/${reader(r, i).novelId}/chapters`, bearer(r, i)),
  },
  {
    key: 'chapters',
    label: 'GET /v1/novels/{id}/chapters?subscriber_id=',
    bound: 'pk-select',
    request: (i, r) => {
      const { subscriberId, novelId } = reader(r, i);
      return get(`/v1/novels/${novelId}/chapters?subscriber_id=${subscriberId}`, bearer(r, i));
    },
  },
  {
    key: 'progress',
    bound: 'pk-select',
    label: 'GET /v1/subscriber/{id}/reading-progress',
    request: (i, r) => get(`/v1/subscriber/${reader(r, i).subscriberId}/reading-progress`, bearer(r, i)),
  },
  {
    key: 'position-get',
    bound: 'pk-select',
    label: 'GET /v1/subscribers/{id}/playback-position',
    request: (i, r) => {
      const { subscriberId, novelId } = reader(r, i);
      return get(`/v1/subscribers/${subscriberId}/playback-position?novel_id=${novelId}`, bearer(r, i));
    },
  },
  {
    key: 'position-put',
    bound: 'upsert',
    label: 'PUT /v1/subscribers/{id}/playback-position',
    request: (i, r) => positionPut(i, r),
  },
  {
    // The same write made safe to retry (DECISIONS 30): a new key every request, as the SDK sends.
    key: 'position-put-keyed',
    bound: 'upsert',
    sameWorkAs: 'position-put',
    label: 'PUT /v1/subscribers/{id}/playback-position, Idempotency-Key',
    request: (i, r) => {
      const request = positionPut(i, r);
      return { ...request, headers: { ...request.headers, 'idempotency-key': `${RUN}-${(keysSent += 1)}` } };
    },
  },
  {
    key: 'stream',
    bound: 'pk-select',
    label: 'GET /v1/novels/{id}/chapters/{n}/stream',
    request: (i, r) => {
      const { subscriberId, novelId, chapterNumber } = reader(r, i);
      return get(`/v1/novels/${novelId}/chapters/${chapterNumber}/stream?subscriber_id=${subscriberId}`, bearer(r, i));
    },
  },
  {
    key: 'token',
    label: 'POST /platform/v1/oauth2/token',
    request: (i, r) => {
      const credential = r.credentials[i % r.credentials.length];
      return {
        method: 'POST',
        path: '/platform/v1/oauth2/token',
        headers: {
          authorization: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      };
    },
  },
  {
    key: 'engagement',
    label: 'GET /v1/analytics/engagement',
    connections: 4,
    singleClientRequests: 30,
    request: (i, r) => get(`/v1/analytics/engagement?period_start=${r.period.start}&period_end=${r.period.end}`, bearer(r, i)),
  },
  {
    key: 'kids',
    label: 'GET /kids/v1/engagement/summary',
    connections: 4,
    singleClientRequests: 30,
    // Whole settled months only (DECISIONS 15): the first request fixes the month, the rest read it.
    request: (i, r) => get(`/kids/v1/engagement/summary?${latestSettledMonth()}`, bearer(r, i)),
  },
  {
    key: 'billing',
    label: 'GET /platform/v1/billing-usage',
    connections: 4,
    singleClientRequests: 30,
    // The month of the period's end: the current month, whose audioapp and textapp history the seed wrote.
    request: (i, r) => get(`/platform/v1/billing-usage?product=${i % 2 ? 'audioapp' : 'textapp'}&period=${r.period.end.slice(0, 7)}`, bearer(r, i)),
  },
];

/**
 * The children's window of the latest month that ended SETTLEMENT_HOURS ago: within the
 * seed's ACTIVITY_DAYS of sessions.
 */
function latestSettledMonth(now = new Date()): string {
  const settled = new Date(now.getTime() - SETTLEMENT_HOURS * 3_600_000);
  const day = (year: number, month: number, date: number) => new Date(Date.UTC(year, month, date)).toISOString().slice(0, 10);
  return `period_start=${day(settled.getUTCFullYear(), settled.getUTCMonth() - 1, 1)}&period_end=${day(settled.getUTCFullYear(), settled.getUTCMonth(), 0)}`;
}
