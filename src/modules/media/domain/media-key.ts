import type { Environment } from '../../../shared/tenancy/tenant.js';
import { isNovelId } from '../../../shared/identifiers.js';

/**
 * Where a media object lives, the same in every storage back end: slash-separated
 * segments of `a-z 0-9 _ -`, each optionally followed by `.extension` parts. No segment
 * can be empty, `.` or `..`, and a key never starts with a slash, so a key joined under
 * the media directory can never leave it.
 */
const MEDIA_KEY = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*(?:\/[a-z0-9_-]+(?:\.[a-z0-9_-]+)*)*$/;
const MAX_MEDIA_KEY_LENGTH = 255;

export const isMediaKey = (key: string): boolean => key.length <= MAX_MEDIA_KEY_LENGTH && MEDIA_KEY.test(key);

/** For keys the service made itself: a bad one is a bug, never a caller's mistake. */
export function assertMediaKey(key: string): void {
  if (!isMediaKey(key)) throw new RangeError(`"${key}" is not a valid media key`);
}

const CONTENT_DIGEST = /^[0-9a-f]{16}$/;

/**
 * The key of one version of a chapter's narration, named by its content: importing other
 * audio for the chapter stores it beside the old file instead of over it. So nothing a
 * catalog row points at ever changes under it (the row switches to the new key when the
 * import commits), a URL already issued keeps serving the file it was issued for, and
 * objects stored by an import that was then refused are never pointed at.
 */
export function chapterAudioKey(environment: Environment, novelId: string, chapterNumber: number, contentDigest: string): string {
  assertChapter(novelId, chapterNumber);
  if (!CONTENT_DIGEST.test(contentDigest)) throw new RangeError(`Content digest "${contentDigest}" is not 16 lowercase hex digits`);
  return `${environment}/${novelId}/${chapterNumber}-${contentDigest}.mp3`;
}

/** A novel slug and a chapter number from 1: anything else is a bug in the caller. */
export function assertChapter(novelId: string, chapterNumber: number): void {
  if (!isNovelId(novelId)) throw new RangeError(`Novel id "${novelId}" is not a lowercase slug`);
  if (!Number.isSafeInteger(chapterNumber) || chapterNumber < 1) {
    throw new RangeError(`Chapter number ${chapterNumber} is not an integer from 1`);
  }
}
