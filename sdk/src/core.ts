/**
 * What both entries export, the Node one (`@partner-reading/sdk`) and the edge one
 * (`@partner-reading/sdk/edge`): everything that needs no more than fetch and Web Crypto.
 */
import type { components } from './generated/openapi.js';

export { PartnerClient, type Environment, type PartnerClientConstructor, type PartnerClientOptions } from './client.js';
export {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  FeedGapError,
  InvalidRequestError,
  NotFoundError,
  PartnerError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  WebhookVerificationError,
  type ApiErrorDetails,
} from './errors.js';
export { memoryCheckpoint, type Checkpoint, type EventFeedOptions } from './events.js';
export type { ErrorCode, ErrorCodesByStatus } from './generated/errors.js';
export {
  OPERATIONS,
  type OperationId,
  type OperationSpec,
  type PagedOperationId,
  type SandboxOnlyOperationId,
  type SandboxTwins,
} from './generated/operations.js';
export type { components, operations, paths, webhooks } from './generated/openapi.js';
export { DEFAULT_RETRY, type RetryEvent, type RetryOptions } from './retry.js';
export type {
  ApiResponse,
  CallOptions,
  EnvInput,
  EnvOutput,
  EventType,
  Input,
  NoInput,
  Output,
  PageItem,
  PartnerEvent,
  RoutedOperation,
  WebhookEvent,
} from './types.js';
export { SDK_VERSION } from './version.js';
export type { VerifiedWebhook, WebhookHeaders } from './webhook-delivery.js';

/** A schema of the document by name: `Schema<'CatalogEntryDto'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
