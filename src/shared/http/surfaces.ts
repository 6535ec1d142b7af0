import type { Surface } from '../../config/app-config.js';

/**
 * Mount points of DECISIONS 1. The text and audio controllers are mounted twice, at
 * `/v1` (live data) and `/sandbox/v1` (sandbox data); the mount a request arrived on
 * decides which data it sees.
 */
export const MOUNTS = {
  reading: 'v1',
  sandbox: 'sandbox/v1',
  platform: 'platform/v1',
  kids: 'kids/v1',
} as const satisfies Record<Surface, string>;

/** Controller paths for the text and audio service: the same routes on both mounts. */
export const readingPaths = (path = ''): string[] => [MOUNTS.reading, MOUNTS.sandbox].map((mount) => (path ? `${mount}/${path}` : mount));

export const platformPath = (path = '') => (path ? `${MOUNTS.platform}/${path}` : MOUNTS.platform);
export const kidsPath = (path = '') => (path ? `${MOUNTS.kids}/${path}` : MOUNTS.kids);

/** The surface a URL or route pattern belongs to, if any. */
export function surfaceOf(url: string): Surface | undefined {
  if (url.startsWith('/v1/') || url === '/v1') return 'reading';
  if (url.startsWith('/sandbox/v1/') || url === '/sandbox/v1') return 'sandbox';
  if (url.startsWith('/platform/v1/') || url === '/platform/v1') return 'platform';
  if (url.startsWith('/kids/v1/') || url === '/kids/v1') return 'kids';
  return undefined;
}

/**
 * The surfaces whose mounting serves a route pattern: its mount, or for the signed media
 * URLs (`/media/...`, which only the text and audio service hands out) the reading
 * surfaces. A pattern of no surface (health, docs, metrics) is served everywhere.
 */
export function surfacesServing(route: string): readonly Surface[] {
  const surface = surfaceOf(route);
  if (surface) return [surface];
  if (route.startsWith('/media/')) return ['reading', 'sandbox'];
  return [];
}
