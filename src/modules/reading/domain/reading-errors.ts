import { DomainError } from '../../../shared/errors/domain-error.js';
import type { ChapterRelease } from './novel-progress.js';

/** Why a chapter's text or audio cannot be had yet, for error descriptions. */
export function notReleasedReason(novelId: string, chapterNumber: number, release: ChapterRelease): string {
  if (!release.started) {
    return `Chapter ${chapterNumber} of novel "${novelId}" is not yet released: the subscriber has not opened the novel (POST /subscribers/{id}/novels).`;
  }
  return `Chapter ${chapterNumber} of novel "${novelId}" is not yet released for this subscriber; it is expected at ${release.unlocksAt?.toISOString()}.`;
}

export const chapterLocked = (novelId: string, chapterNumber: number, release: ChapterRelease) =>
  new DomainError('chapter_locked', notReleasedReason(novelId, chapterNumber, release));

export const notEntitled = (subscriberId: string) =>
  new DomainError('subscriber_not_entitled', `Subscriber "${subscriberId}" has no active textapp or audioapp entitlement.`);

export const alreadyFinished = (novelId: string) => new DomainError('novel_already_finished', `Novel "${novelId}" is already finished for this subscriber.`);
