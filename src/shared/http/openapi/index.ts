import type { OpenAPIObject } from '@nestjs/swagger';
import { documentIdempotencyKeys } from './idempotency.js';
import { nameOperations } from './operation-ids.js';
import { constrainParameters } from './parameters.js';
import { documentLiveBodies, documentRequestBodies } from './request-bodies.js';
import { declareResponses } from './responses.js';
import { applySecurity, type DocumentedIssuer } from './security.js';
import { orderTagsAndPaths } from './tags.js';

export { OPERATION_IDS, operationIdOf } from './operation-ids.js';
export { TAGS } from './tags.js';
export type { DocumentedIssuer } from './security.js';

/**
 * Completes the document Nest scans from the decorators with what tools need and the
 * decorators cannot say once per route: operation names, security from the access
 * rules, every error answer with its headers, enforced parameter and body rules, tags and
 * order.
 */
export function refineDocument(document: OpenAPIObject, issuers: readonly DocumentedIssuer[]): OpenAPIObject {
  nameOperations(document);
  applySecurity(document, issuers);
  documentIdempotencyKeys(document);
  declareResponses(document, (path) => issuers.some((issuer) => issuer.tokenPath === path));
  constrainParameters(document);
  documentRequestBodies(document);
  documentLiveBodies(document);
  orderTagsAndPaths(document);
  return document;
}
