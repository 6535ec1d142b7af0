import fc from 'fast-check';
import { engagementReport, MINIMUM_COHORT_SIZE, omitSmallCohorts, type EndingCount } from '../../src/modules/analytics/domain/engagement-report.js';
import { reportingWindow } from '../../src/modules/analytics/domain/reporting-window.js';

const ending = (count: number, choice = `choice-${count}`): EndingCount => ({ novelId: 'the-heir', choiceId: choice, label: choice, count });

describe('small-cohort suppression of the ending distribution', () => {
  it('omits a row of 19 readers and keeps a row of 20', () => {
    expect(MINIMUM_COHORT_SIZE).toBe(20);
    expect(omitSmallCohorts([ending(19), ending(20)])).toEqual([ending(20)]);
  });

  it('never lets a row under the minimum through, and keeps every other row in order', () => {
    const rows = fc.array(fc.record({ novelId: fc.string(), choiceId: fc.string(), label: fc.string(), count: fc.nat({ max: 60 }) }));
    fc.assert(
      fc.property(rows, (input) => {
        const kept = omitSmallCohorts(input);
        expect(kept.every((row) => row.count >= MINIMUM_COHORT_SIZE)).toBe(true);
        expect(kept).toEqual(input.filter((row) => row.count >= MINIMUM_COHORT_SIZE));
      }),
    );
  });
});

describe('engagement report formulas', () => {
  const window = reportingWindow('2026-10-01', '2026-10-31');
  const generatedAt = new Date('2026-11-01T00:00:00Z');

  it('divides distinct chapters by readers and finished by started novels', () => {
    const report = engagementReport(window, { activeReaders: 8, chaptersRead: 30 }, { started: 16, finished: 5 }, [ending(25), ending(3)], generatedAt);
    expect(report).toEqual({
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
      activeReaders: 8,
      avgChaptersReadPerActiveReader: 3.75,
      completionRate: 0.3125,
      endingDistribution: [ending(25)],
      minimumCohortSize: 20,
      generatedAt: new Date('2026-11-01T00:00:00.000Z'),
    });
  });

  it('answers 0, not NaN, when nobody read and nothing was started', () => {
    const report = engagementReport(window, { activeReaders: 0, chaptersRead: 0 }, { started: 0, finished: 0 }, [], generatedAt);
    expect(report).toMatchObject({ activeReaders: 0, avgChaptersReadPerActiveReader: 0, completionRate: 0, endingDistribution: [] });
  });

  it('rounds the average to 2 decimals and the rate to 4', () => {
    const report = engagementReport(window, { activeReaders: 3, chaptersRead: 10 }, { started: 3, finished: 2 }, [], generatedAt);
    expect(report.avgChaptersReadPerActiveReader).toBe(3.33);
    expect(report.completionRate).toBe(0.6667);
  });
});
