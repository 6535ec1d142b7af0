/**
 * @partner-reading/sdk: the Partner Reading and Listening API for Node.js servers.
 * README.md describes every export.
 */
import type { components } from './generated/openapi.js';

export { PartnerClient, type Environment, type PartnerClientOptions } from './client.js';
export { ApiError, ConnectionError, FeedGapError, WebhookVerificationError } from './errors.js';
export { fileCheckpoint, memoryCheckpoint, type Checkpoint, type EventFeedOptions } from './events.js';
export { OPERATIONS, type OperationId, type OperationSpec, type PagedOperationId, type SandboxTwins } from './generated/operations.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export { DEFAULT_RETRY, type RetryEvent, type RetryOptions } from './retry.js';
export type {
  ApiResponse,
  CallOptions,
  EnvInput,
  EnvOutput,
  EventType,
  Input,
  Output,
  PageItem,
  PartnerEvent,
  RoutedOperation,
  WebhookEvent,
} from './types.js';
export { SDK_VERSION } from './version.js';
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';

/** A schema of the document by name: `Schema<'CatalogEntryDto'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
