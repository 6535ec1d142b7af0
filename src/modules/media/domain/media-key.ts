import type { Environment } from '../../../shared/tenancy/tenant.js';
import { isNovelId } from '../../../shared/http/identifiers.js';

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

/** The one key of a chapter's narration: importing it again replaces the file. */
export function chapterAudioKey(environment: Environment, novelId: string, chapterNumber: number): string {
  assertChapter(novelId, chapterNumber);
  return `${environment}/${novelId}/${chapterNumber}.mp3`;
}

/** A novel slug and a chapter number from 1: anything else is a bug in the caller. */
export function assertChapter(novelId: string, chapterNumber: number): void {
  if (!isNovelId(novelId)) throw new RangeError(`Novel id "${novelId}" is not a lowercase slug`);
  if (!Number.isSafeInteger(chapterNumber) || chapterNumber < 1) {
    throw new RangeError(`Chapter number ${chapterNumber} is not an integer from 1`);
  }
}
