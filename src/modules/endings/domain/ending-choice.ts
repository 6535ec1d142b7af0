import { DomainError } from '../../../shared/errors/domain-error.js';

/** What the reader's progress says about a choice of ending. */
export interface ChoiceContext {
  novelId: string;
  subscriberId: string;
  /** The reader's chosen ending so far, null while the novel is unfinished. */
  chosenChoiceId: string | null;
  finished: boolean;
  /** Whether the drip has released the last chapter to this reader (DECISIONS 7). */
  lastChapterReleased: boolean;
  endingIds: readonly string[];
}

/**
 * Decides a choice of ending: 'repeat' when the same choice was already made (answered
 * again, nothing emitted), 'finish' when it finishes the novel, else the reason it cannot.
 * The order matters: a repeat succeeds even after the endings changed.
 */
export function decideChoice(context: ChoiceContext, choiceId: string): 'repeat' | 'finish' {
  const { novelId, subscriberId } = context;
  if (context.chosenChoiceId === choiceId) return 'repeat';
  if (!context.finished && !context.lastChapterReleased) {
    throw new DomainError('endings_not_available', `The endings of novel "${novelId}" are available once its last chapter is released for the subscriber.`);
  }
  if (!context.endingIds.includes(choiceId)) {
    throw new DomainError('invalid_request', `choice_id "${choiceId}" is not an ending of novel "${novelId}" (GET /novels/${novelId}/choices lists them).`);
  }
  if (context.finished) {
    throw new DomainError('ending_already_chosen', `Subscriber "${subscriberId}" already chose the ending "${context.chosenChoiceId}" of novel "${novelId}".`);
  }
  return 'finish';
}

export const novelNotStarted = (subscriberId: string, novelId: string) =>
  new DomainError('novel_not_started', `Subscriber "${subscriberId}" has not opened novel "${novelId}".`);
