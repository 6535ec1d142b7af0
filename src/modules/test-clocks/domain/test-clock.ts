/**
 * Sandbox test clocks (DECISIONS 28): a frozen instant that is "now" for the sandbox
 * subscribers attached to it, moved forward only by an advance.
 */
export interface TestClock {
  id: string;
  name: string | null;
  frozenTime: Date;
  /** Attached subscribers, in the order they were attached. */
  subscriberIds: string[];
  createdAt: Date;
}

export const CLOCKS_PER_PARTNER = 10;
export const SUBSCRIBERS_PER_CLOCK = 100;
/**
 * What one partner's clocks may write (ADR 0128): a clock advance spends one of
 * ADVANCES_PER_HOUR (ADVANCE_BURST at once), and the `chapter.unlocked` events it writes
 * spend as many of EVENTS_PER_HOUR (as many at once, so one advance writes at most that).
 */
export const ADVANCES_PER_HOUR = 60;
export const ADVANCE_BURST = 20;
export const EVENTS_PER_HOUR = 1000;

/** How far a clock may be set from the real time, and how far one advance may move it. */
export const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** Why a new clock's frozen_time is refused, or null: it must lie within a year of now, either way. */
export function frozenTimeRefusal(frozenTime: Date, now: Date): string | null {
  if (Math.abs(frozenTime.getTime() - now.getTime()) <= YEAR_MS) return null;
  return `frozen_time must be within a year of now (${now.toISOString()}): between ${new Date(now.getTime() - YEAR_MS).toISOString()} and ${new Date(now.getTime() + YEAR_MS).toISOString()}.`;
}

/**
 * What an advance to `target` does to a clock at `current`, at the real time `now`. The same
 * instant again is a retry of an advance that already happened (its answer was lost):
 * nothing to do, and the same answer. Each advance moves at most a year, which bounds its
 * work, and never past a year from the real time, the rule of a new clock: advances in a
 * row would otherwise reach year 10000, which no RFC 3339 date can carry.
 */
export type AdvanceDecision = { kind: 'advance' } | { kind: 'unchanged' } | { kind: 'refused'; reason: string };

export function advanceDecision(current: Date, target: Date, now: Date): AdvanceDecision {
  if (target.getTime() === current.getTime()) return { kind: 'unchanged' };
  if (target.getTime() < current.getTime()) {
    return { kind: 'refused', reason: `frozen_time must be later than the clock's current time (${current.toISOString()}): a clock only moves forward.` };
  }
  if (target.getTime() - current.getTime() > YEAR_MS) {
    return {
      kind: 'refused',
      reason: `frozen_time must be at most a year after the clock's current time (${current.toISOString()}); advance in several steps.`,
    };
  }
  if (target.getTime() - now.getTime() > YEAR_MS) {
    return {
      kind: 'refused',
      reason: `frozen_time must be within a year of now (${now.toISOString()}): at most ${new Date(now.getTime() + YEAR_MS).toISOString()}.`,
    };
  }
  return { kind: 'advance' };
}
