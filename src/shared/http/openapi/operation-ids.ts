import type { OpenAPIObject } from '@nestjs/swagger';
import { MOUNTS } from '../surfaces.js';

/**
 * The operationId of every operation, by method and path: the names generated SDKs give
 * their methods. Paths of the text and audio service are written on the live mount `/v1`;
 * the same operation on the sandbox mount is named with a `sandbox` prefix
 * (`listNovels`, `sandboxListNovels`). Aliases of DECISIONS 13 end in `Alias`.
 * One table, rather than a name in each decorator, so the whole vocabulary reads at a
 * glance; a route missing here keeps Nest's default name and the document test fails.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'GET /health/live': 'getLiveness',
  'GET /health/ready': 'getReadiness',
  'GET /metrics': 'getMetrics',
  'POST /platform/v1/oauth2/token': 'issuePlatformToken',
  'GET /platform/v1/jwks': 'getPlatformKeySet',
  'POST /kids/v1/oauth2/token': 'issueKidsToken',
  'GET /kids/v1/jwks': 'getKidsKeySet',
  'GET /.well-known/oauth-authorization-server/platform/v1': 'getPlatformIssuerMetadata',
  'GET /.well-known/oauth-authorization-server/kids/v1': 'getKidsIssuerMetadata',
  'POST /platform/v1/entitlements': 'upsertEntitlement',
  'GET /platform/v1/subscriber/{id}/status': 'getSubscriberStatus',
  'GET /platform/v1/billing-usage': 'getBillingUsage',
  'POST /platform/v1/webhook-endpoints': 'createWebhookEndpoint',
  'GET /platform/v1/webhook-endpoints': 'listWebhookEndpoints',
  'DELETE /platform/v1/webhook-endpoints/{id}': 'deleteWebhookEndpoint',
  'POST /platform/v1/webhook-endpoints/{id}/rotate-secret': 'rotateWebhookSecret',
  'GET /platform/v1/webhook-endpoints/{id}/deliveries': 'listWebhookDeliveries',
  'POST /platform/v1/webhook-events/{event_id}/redeliver': 'redeliverWebhookEvent',
  'GET /platform/v1/events': 'readEventFeed',
  'POST /platform/v1/test-clocks': 'createTestClock',
  'GET /platform/v1/test-clocks': 'listTestClocks',
  'GET /platform/v1/test-clocks/{id}': 'getTestClock',
  'DELETE /platform/v1/test-clocks/{id}': 'deleteTestClock',
  'PUT /platform/v1/test-clocks/{id}/subscribers/{subscriber_id}': 'attachTestClockSubscriber',
  'POST /platform/v1/test-clocks/{id}/advance': 'advanceTestClock',
  'GET /platform/v1/subscribers/{subscriber_id}/export': 'exportSubscriberData',
  'DELETE /platform/v1/subscribers/{subscriber_id}': 'eraseSubscriberData',
  'GET /kids/v1/engagement/summary': 'getKidsEngagementSummary',
  'GET /v1/categories': 'listCategories',
  'GET /v1/novels': 'listNovels',
  'GET /v1/subscriber/{id}/reading-progress': 'getReadingProgress',
  'GET /v1/subscribers/{id}/reading-progress': 'getReadingProgressAlias',
  'POST /v1/subscribers/{id}/novels': 'openNovel',
  'DELETE /v1/subscribers/{id}/novels/{novel_id}': 'removeNovel',
  'GET /v1/novels/{id}/chapters': 'listChapters',
  'GET /v1/novels/{id}/chapters/{chapterNumber}/content': 'getChapterContent',
  'GET /v1/novels/{id}/choices': 'getEndingsState',
  'POST /v1/novels/{id}/choices': 'chooseEnding',
  'GET /v1/subscribers/{id}/playback-position': 'getPlaybackPosition',
  'PUT /v1/subscribers/{id}/playback-position': 'putPlaybackPosition',
  'GET /v1/subscriber/{id}/playback-position': 'getPlaybackPositionAlias',
  'PUT /v1/subscriber/{id}/playback-position': 'putPlaybackPositionAlias',
  'GET /v1/analytics/engagement': 'getEngagementReport',
  'GET /v1/voices': 'listVoices',
  'GET /v1/novels/{id}/chapters/{chapterNumber}/stream': 'getStreamUrl',
  'GET /v1/novels/{id}/audio': 'getNovelAudio',
  'GET /v1/novels/{id}/chapters/{chapterNumber}/audio': 'getChapterAudio',
};

const SANDBOX_PREFIX = `/${MOUNTS.sandbox}/`;

/** The operationId for a method and path, or undefined when the table lacks it. */
export function operationIdOf(method: string, path: string): string | undefined {
  const sandbox = path.startsWith(SANDBOX_PREFIX);
  const live = sandbox ? `/${MOUNTS.reading}/${path.slice(SANDBOX_PREFIX.length)}` : path;
  const name = OPERATION_IDS[`${method.toUpperCase()} ${live}`];
  return name && sandbox ? `sandbox${name[0].toUpperCase()}${name.slice(1)}` : name;
}

export function nameOperations(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const name = operationIdOf(method, path);
      if (name) (operation as { operationId?: string }).operationId = name;
    }
  }
}
