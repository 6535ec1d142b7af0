import { isConfirmation, stateAfterAttempt } from '../../src/modules/webhooks/domain/retry-schedule.js';

describe('retry schedule', () => {
  const schedule = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

  it('waits the next step of the schedule after each failure, then fails', () => {
    expect(stateAfterAttempt(schedule, 1, false)).toEqual({ status: 'pending', retryInSeconds: 5 });
    expect(stateAfterAttempt(schedule, 2, false)).toEqual({ status: 'pending', retryInSeconds: 300 });
    expect(stateAfterAttempt(schedule, 7, false)).toEqual({ status: 'pending', retryInSeconds: 36000 });
    expect(stateAfterAttempt(schedule, 8, false)).toEqual({ status: 'failed' });
  });

  it('stops at the first confirmation, even on the last attempt', () => {
    expect(stateAfterAttempt(schedule, 1, true)).toEqual({ status: 'delivered' });
    expect(stateAfterAttempt(schedule, 8, true)).toEqual({ status: 'delivered' });
  });

  it('keeps fractional waits (fast schedules in tests)', () => {
    expect(stateAfterAttempt([0, 0.2, 0.4], 2, false)).toEqual({ status: 'pending', retryInSeconds: 0.4 });
    expect(stateAfterAttempt([0, 0.2, 0.4], 3, false)).toEqual({ status: 'failed' });
  });

  it('counts any 2xx, and only a 2xx, as a confirmation', () => {
    expect([200, 201, 202, 204, 299].every(isConfirmation)).toBe(true);
    expect([null, 100, 199, 300, 301, 302, 304, 400, 404, 500, 503].some(isConfirmation)).toBe(false);
  });
});
