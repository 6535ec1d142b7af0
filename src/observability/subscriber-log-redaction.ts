import type { SubscriberLogIds } from '../shared/crypto/subscriber-log-ids.js';
import type { Environment } from '../shared/tenancy/tenant.js';

/**
 * Where a URL carries a subscriber id, declared once for every route (DECISIONS 29, ADR
 * 0141): a path or query parameter with one of these names, and any path segment that
 * follows a `subscriber` or `subscribers` segment (`/subscriber/{id}/status`,
 * `/subscribers/{id}/novels`, `/test-clocks/{id}/subscribers/{subscriber_id}`). A new route
 * that follows the contract's naming is covered without a change here;
 * `test/observability/subscriber-log-ids.e2e-spec.ts` walks every registered route.
 */
export const SUBSCRIBER_ID_PARAMETERS = new Set(['subscriber_id', 'subscriberid']);
const SUBSCRIBER_COLLECTIONS = new Set(['subscriber', 'subscribers']);

/** Written in place of a subscriber id when no authenticated caller says whose it is. */
export const UNATTRIBUTED_SUBSCRIBER = '[REDACTED]';

/** What the request log knows of a request: its URL, the matched route and, once authenticated, the caller. */
export interface LoggedRequest {
  url?: string;
  routeOptions?: { url?: string };
  principal?: { partnerId: string; environment: Environment };
}

/**
 * The URL with each subscriber id replaced by its log id (`sub_…`) under the caller's
 * partner and environment, or by `[REDACTED]` when the request carries no valid token.
 */
export function subscriberIdsHashed(request: LoggedRequest, logIds: SubscriberLogIds): string {
  const url = request.url ?? '';
  const caller = request.principal;
  const replace = (raw: string) => (caller ? logIds.of(caller.partnerId, caller.environment, decoded(raw)) : UNATTRIBUTED_SUBSCRIBER);
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  const pattern = (request.routeOptions?.url ?? '').split('/');
  const parts = path.split('/');
  const segments = parts.map((segment, index) => {
    const parameter = pattern[index]?.startsWith(':') ? pattern[index].slice(1).toLowerCase() : undefined;
    const previous = index > 0 ? decoded(parts[index - 1]).toLowerCase() : '';
    const isSubscriberId = segment !== '' && ((parameter !== undefined && SUBSCRIBER_ID_PARAMETERS.has(parameter)) || SUBSCRIBER_COLLECTIONS.has(previous));
    return isSubscriberId ? replace(segment) : segment;
  });
  if (queryStart < 0) return segments.join('/');
  const pairs = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const separator = pair.indexOf('=');
      if (separator < 0) return pair;
      const name = pair.slice(0, separator);
      return SUBSCRIBER_ID_PARAMETERS.has(decoded(name).toLowerCase()) ? `${name}=${replace(pair.slice(separator + 1))}` : pair;
    });
  return `${segments.join('/')}?${pairs.join('&')}`;
}

/** Percent-decoded as the router and the query parser read it; malformed text stays as sent. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
