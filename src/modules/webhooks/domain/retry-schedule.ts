/**
 * Where a delivery stands after an attempt (DECISIONS 16). `schedule[i]` is the wait in
 * seconds before attempt i + 1: `schedule[0]` counts from the event, each later one from
 * the failure before it. Any 2xx stops the delivery; a failure with no wait left fails it.
 */
export type DeliveryState = { status: 'delivered' } | { status: 'pending'; retryInSeconds: number } | { status: 'failed' };

export function stateAfterAttempt(schedule: readonly number[], attemptsMade: number, succeeded: boolean): DeliveryState {
  if (succeeded) return { status: 'delivered' };
  return attemptsMade < schedule.length ? { status: 'pending', retryInSeconds: schedule[attemptsMade] } : { status: 'failed' };
}

/** The receiver confirmed the delivery (contract 6, rule 2). Redirects are not followed: a 3xx fails. */
export const isConfirmation = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode < 300;
