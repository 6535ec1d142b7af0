import type { OpenAPIObject, SchemaObject } from '@nestjs/swagger';

/**
 * The events the service POSTs to partners' endpoints (contract 6, DECISIONS 16 and 23),
 * as OpenAPI 3.1 `webhooks`: payloads and the Standard Webhooks headers that sign them.
 */
const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    description: "The event's id (event_id): the same on every retry, so a receiver drops duplicates by it.",
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    description: 'Unix seconds of this attempt; Standard Webhooks libraries refuse a timestamp more than five minutes off, against replays.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` then the base64 HMAC-SHA-256 of `webhook-id.webhook-timestamp.body` under the endpoint secret (the key is the base64 after `whsec_`). During a secret rotation two signatures, space-separated; accept either. Verify with any Standard Webhooks library.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
  {
    name: 'webhook-sequence',
    description: "The event's seq in the event feed (GET /platform/v1/events): a gap means a missed event, read the feed from the last seq processed.",
    schema: { type: 'string', pattern: '^\\d+$' },
  },
].map((header) => ({ ...header, in: 'header' as const, required: true }));

const envelope = (event: string, data: Record<string, SchemaObject>, required: string[]): SchemaObject => ({
  type: 'object',
  required: ['event', 'event_id', 'occurred_at', 'data'],
  properties: {
    // `const` is OpenAPI 3.1 (JSON Schema); Nest's SchemaObject type predates it.
    event: { type: 'string', const: event } as SchemaObject,
    event_id: { type: 'string', format: 'uuid', description: 'Equals the webhook-id header.' },
    occurred_at: { type: 'string', format: 'date-time' },
    data: { type: 'object', required, properties: data },
  },
});

/**
 * Once its subscriber is erased, an event keeps its place in the feed (and can be
 * redelivered) with `subscriber_id: null` and `erased: true` (DECISIONS 29).
 */
const SUBSCRIBER = {
  type: ['string', 'null'],
  description: "The partner's subscriber id; null once the subscriber is erased.",
} as unknown as SchemaObject;
const ERASED: SchemaObject = { type: 'boolean', enum: [true], description: 'Present, and true, only once the subscriber is erased.' };
const NOVEL: SchemaObject = { type: 'string', description: 'The novel slug.' };

export const WEBHOOK_SCHEMAS = {
  NovelFinishedEvent: envelope(
    'novel.finished',
    { subscriber_id: SUBSCRIBER, novel_id: NOVEL, choice_id: { type: 'string', description: 'The chosen ending.' }, erased: ERASED },
    ['subscriber_id', 'novel_id', 'choice_id'],
  ),
  ChapterUnlockedEvent: envelope(
    'chapter.unlocked',
    {
      subscriber_id: SUBSCRIBER,
      novel_id: NOVEL,
      chapter_number: { type: 'integer', minimum: 1 },
      chapter_id: { type: 'string' },
      erased: ERASED,
    },
    ['subscriber_id', 'novel_id', 'chapter_number', 'chapter_id'],
  ),
};

const webhook = (operationId: string, summary: string, description: string, schema: keyof typeof WEBHOOK_SCHEMAS) => ({
  post: {
    operationId,
    summary,
    description: `${description} Delivered to endpoints subscribed to it, signed as Standard Webhooks; any 2xx answer within the delivery timeout acknowledges it, anything else is retried on the schedule of the guide.`,
    tags: ['Platform: webhooks'],
    security: [],
    parameters: SIGNATURE_HEADERS,
    requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } },
    responses: {
      '200': { description: 'Received (any 2xx).' },
      '400': { description: 'Refused (for example a bad signature): the delivery is retried, then marked failed.' },
    },
  },
});

export function addWebhooks(document: OpenAPIObject): void {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...WEBHOOK_SCHEMAS } };
  (document as OpenAPIObject & { webhooks: Record<string, unknown> }).webhooks = {
    'novel.finished': webhook(
      'onNovelFinished',
      'A subscriber finished a novel',
      'Sent once the subscriber chose an ending (the novel is finished).',
      'NovelFinishedEvent',
    ),
    'chapter.unlocked': webhook(
      'onChapterUnlocked',
      'A chapter was released to a subscriber',
      'Sent when the drip releases a chapter to a reader, to endpoints that subscribed to it before the release instant.',
      'ChapterUnlockedEvent',
    ),
  };
}
