import { decideChoice, type ChoiceContext } from '../../src/modules/endings/domain/ending-choice.js';
import { DomainError } from '../../src/shared/errors/domain-error.js';

const atTheEnd: ChoiceContext = {
  novelId: 'the-heir',
  subscriberId: 'sub-1',
  chosenChoiceId: null,
  finished: false,
  lastChapterReleased: true,
  endingIds: ['stay', 'leave'],
};

const refusalKind = (context: ChoiceContext, choiceId: string) => {
  try {
    decideChoice(context, choiceId);
  } catch (error) {
    if (error instanceof DomainError) return error.kind;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('choosing an ending', () => {
  it('finishes with a known ending once the last chapter is released', () => {
    expect(decideChoice(atTheEnd, 'stay')).toBe('finish');
  });

  it('answers a repeat of the same choice, even if the endings changed since', () => {
    expect(decideChoice({ ...atTheEnd, finished: true, chosenChoiceId: 'stay', endingIds: ['leave'] }, 'stay')).toBe('repeat');
  });

  it('refuses before the last chapter, an unknown ending, and a second different choice', () => {
    expect(refusalKind({ ...atTheEnd, lastChapterReleased: false }, 'stay')).toBe('endings_not_available');
    expect(refusalKind(atTheEnd, 'elope')).toBe('invalid_request');
    expect(refusalKind({ ...atTheEnd, finished: true, chosenChoiceId: 'stay' }, 'leave')).toBe('ending_already_chosen');
  });

  it('lets a finished reader repeat after losing early access: the last chapter stays theirs', () => {
    expect(decideChoice({ ...atTheEnd, finished: true, chosenChoiceId: 'leave', lastChapterReleased: false }, 'leave')).toBe('repeat');
  });
});
