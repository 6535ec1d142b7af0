/** Every scope a credential can hold (DECISIONS 4). */
export const SCOPES = [
  'platform:entitlements:write',
  'platform:subscribers:read',
  'platform:subscribers:erase',
  'platform:billing:read',
  'platform:webhooks:manage',
  'textapp:catalog:read',
  'textapp:content:read',
  'textapp:progress:read',
  'textapp:progress:write',
  'textapp:analytics:read',
  'audioapp:audio:read',
  'audioapp:playback:read',
  'audioapp:playback:write',
  'audioapp:voices:read',
  'kidsapp:engagement:read',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * What a credential gets when its scopes are not given (`partner:create`, DECISIONS 18):
 * every scope but erasing a subscriber's data, which is asked for by name (DECISIONS 4).
 */
export const DEFAULT_SCOPES: readonly Scope[] = SCOPES.filter((scope) => scope !== 'platform:subscribers:erase');

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Parses a space- or comma-separated scope list; returns the unknown names separately. */
export function parseScopes(text: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  return { scopes: names.filter(isScope), unknown: names.filter((n) => !isScope(n)) };
}
