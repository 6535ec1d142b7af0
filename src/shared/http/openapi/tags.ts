import type { OpenAPIObject } from '@nestjs/swagger';
import { EXTENSIONS_TAG } from '../extension.decorator.js';
import { operationsOf } from './operations.js';

/** The tags, in the order readers meet them: the contract's services, then the rest. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: 'Catalog', description: 'Categories and the catalog of published novels (text and audio service).' },
  { name: 'Chapters and endings', description: "A novel's chapters, their release to a subscriber by the drip, and the choice of an ending." },
  { name: 'Reading progress', description: "A subscriber's novels: open, remove, and the consolidated progress." },
  { name: 'Audio', description: 'Narrated chapters: signed stream URLs, downloads and the voices.' },
  { name: 'Playback position', description: 'Where a subscriber is listening, per novel.' },
  { name: 'Analytics', description: 'The engagement report of a period, with small cohorts suppressed.' },
  { name: 'Platform: tokens and keys', description: 'Client-credentials tokens, the keys that verify them and the issuer metadata.' },
  { name: 'Platform: entitlements', description: "Which subscribers may read or listen: the partner's entitlement writes." },
  { name: 'Platform: billing', description: 'Active entitlements per product and period, the basis of the invoice.' },
  { name: 'Platform: webhooks', description: 'Endpoints that receive events (Standard Webhooks), their deliveries, and the event feed.' },
  { name: 'Platform: subscribers', description: "A subscriber's data: everything held about it, and its erasure." },
  { name: 'Platform: test clocks', description: 'Sandbox only: move time forward for chosen subscribers, to watch the drip and chapter.unlocked in seconds.' },
  { name: 'Children: engagement', description: "The children's service: its own token issuer and the engagement summary." },
  { name: 'Operations', description: 'Health and metrics, for the operator.' },
  { name: EXTENSIONS_TAG, description: 'Endpoints and shapes beyond the partner contract (DECISIONS.md). Listed after the contract.' },
];

/**
 * Declares the tags (a tag used but not listed is appended without a description, which
 * the lint reports) and lists the contract's paths before those that are only extensions.
 */
export function orderTagsAndPaths(document: OpenAPIObject): void {
  const used = new Set(operationsOf(document).flatMap(({ operation }) => operation.tags ?? []));
  const declared = new Set(TAGS.map((tag) => tag.name));
  document.tags = [...TAGS.filter((tag) => used.has(tag.name)), ...[...used].filter((name) => !declared.has(name)).map((name) => ({ name }))];
  const extensionOnly = (path: string) =>
    operationsOf({ ...document, paths: { [path]: document.paths[path] } }).every(({ operation }) => operation['x-extension']);
  const paths = Object.keys(document.paths);
  document.paths = Object.fromEntries(
    [...paths.filter((path) => !extensionOnly(path)), ...paths.filter(extensionOnly)].map((path) => [path, document.paths[path]]),
  );
}
