import { DomainError } from '../../../shared/errors/domain-error.js';
import type { AudioStatus } from '../../catalog/index.js';

export const planWithoutAudio = (subscriberId: string) =>
  new DomainError('plan_without_audio', `Subscriber "${subscriberId}" has no active entitlement whose plan includes audio.`);

export const audioNotReady = (novelId: string, chapterNumber: number, status: AudioStatus) =>
  new DomainError('audio_not_ready', `The narration of chapter ${chapterNumber} of novel "${novelId}" is not ready to stream (audio_status: ${status}).`);
