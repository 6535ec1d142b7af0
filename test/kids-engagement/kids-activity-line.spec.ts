import { InvalidKidsActivityLine, parseKidsActivityLine } from '../../src/modules/kids-engagement/domain/kids-activity.js';

const valid = {
  account_id: 'acct-1',
  child_ref: 'child-a',
  story_id: 'the-dragon',
  minutes: 12.5,
  completed_at: '2026-10-02T18:40:00Z',
  occurred_at: '2026-10-02T18:20:00-03:00',
};
const line = (changes: Record<string, unknown>, drop?: string) => {
  const fields: Record<string, unknown> = { ...valid, ...changes };
  if (drop) delete fields[drop];
  return JSON.stringify(fields);
};

function problemOf(text: string, lineNumber = 7): string {
  try {
    parseKidsActivityLine(text, lineNumber);
  } catch (error) {
    if (error instanceof InvalidKidsActivityLine) return error.message;
    throw error;
  }
  throw new Error('expected the line to be refused');
}

describe('a kids:import line', () => {
  it('reads every field', () => {
    expect(parseKidsActivityLine(line({}), 1)).toEqual({
      accountId: 'acct-1',
      childRef: 'child-a',
      storyId: 'the-dragon',
      minutes: 12.5,
      completedAt: new Date('2026-10-02T18:40:00Z'),
      occurredAt: new Date('2026-10-02T21:20:00Z'),
    });
    expect(parseKidsActivityLine(line({ completed_at: null }), 1).completedAt).toBeNull();
  });

  it.each([
    ['not JSON', '{"account_id":', /^line 7: is not valid JSON$/],
    ['not an object', '[1, 2]', /^line 7: must be a JSON object$/],
    ['an unknown field', line({ subscriber: 'x' }), /^line 7: subscriber is not a field/],
    ['a missing field', line({}, 'story_id'), /^line 7: story_id is required$/],
    ['completed_at left out rather than null', line({}, 'completed_at'), /^line 7: completed_at is required$/],
    ['an empty account', line({ account_id: '' }), /^line 7: account_id must be 1 to 128 characters/],
    ['a child reference with spaces', line({ child_ref: 'Ana Maria' }), /^line 7: child_ref must be/],
    ['a numeric story', line({ story_id: 12 }), /^line 7: story_id must be/],
    ['negative minutes', line({ minutes: -1 }), /^line 7: minutes must be a number from 0 to 1440$/],
    ['minutes as text', line({ minutes: '10' }), /^line 7: minutes must be a number/],
    ['more than a day of minutes', line({ minutes: 1441 }), /^line 7: minutes must be/],
    ['a date without a time zone', line({ occurred_at: '2026-10-02T18:20:00' }), /^line 7: occurred_at must be an ISO 8601 date-time/],
    ['a date that does not exist', line({ occurred_at: '2026-02-30T10:00:00Z' }), /^line 7: occurred_at must be/],
    ['a bare date', line({ completed_at: '2026-10-02' }), /^line 7: completed_at must be/],
  ])('is refused with its line number and field for %s', (_case, text, message) => {
    expect(problemOf(text)).toMatch(message);
  });
});
