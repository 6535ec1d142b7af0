/**
 * Below this many active accounts, or this many accounts with children's activity, in any
 * month of the window, every figure is withheld (contract 2, 4.3, 8; DECISIONS 15).
 */
export const MIN_SAMPLE_THRESHOLD = 30;

/** The partner-wide figures of a period, before suppression. */
export interface KidsEngagementMeasures {
  activeAccounts: number;
  /**
   * Active accounts with children's activity in the period, counted up to the threshold (only
   * whether it is reached matters). The partner writes its own entitlements, so the active
   * count alone could be inflated around one real child.
   */
  accountsWithActivity: number;
  storiesCompleted: number;
  /** Minutes read by the active accounts, all their children together. */
  minutesRead: number;
}

/**
 * One month's figures, fixed the first time an answer covered the month (ADR 0135): every
 * answer is composed from these, whatever was written since.
 */
export interface KidsMonthFigures extends KidsEngagementMeasures {
  /** YYYY-MM-01 */
  month: string;
  /**
   * `[k]`: the accounts entitled at some instant of the k + 1 months ending with this one
   * (k from 0 to 11; `[0]` is the month's `activeAccounts`). A window's active accounts are
   * a distinct count, not a sum of its months: it is its last month's `[months − 1]`.
   */
  activeAccountsOverMonths: readonly number[];
  fixedAt: Date;
}

/** The children's engagement summary of contract section 2. */
export interface KidsEngagementSummary {
  periodStart: string;
  periodEnd: string;
  activeAccounts: number | null;
  storiesCompleted: number | null;
  avgMinutesPerActiveAccount: number | null;
  minSampleThreshold: number;
  suppressed: boolean;
  /** When the newest of the window's months was fixed: a repeat gives the same answer, this included. */
  generatedAt: Date;
}

/** Under the threshold a month's figures could describe a few identifiable families. */
export const monthSuppressed = (month: KidsEngagementMeasures): boolean =>
  month.activeAccounts < MIN_SAMPLE_THRESHOLD || month.accountsWithActivity < MIN_SAMPLE_THRESHOLD;

/**
 * The summary of a window from its months' fixed figures (oldest first), with small-sample
 * suppression month by month: when any month alone is under a threshold no figure is
 * given at all, not even the account count, so that a long window cannot carry a small
 * month's figures past the thresholds. Stories and minutes are sums of the months'; the
 * active accounts are the distinct count of the last month's `activeAccountsOverMonths`.
 */
export function kidsEngagementSummary(window: { start: string; end: string }, months: readonly KidsMonthFigures[]): KidsEngagementSummary {
  const suppressed = months.some(monthSuppressed);
  const activeAccounts = months[months.length - 1].activeAccountsOverMonths[months.length - 1];
  const storiesCompleted = months.reduce((sum, month) => sum + month.storiesCompleted, 0);
  const minutesRead = months.reduce((sum, month) => sum + month.minutesRead, 0);
  return {
    periodStart: window.start,
    periodEnd: window.end,
    activeAccounts: suppressed ? null : activeAccounts,
    storiesCompleted: suppressed ? null : storiesCompleted,
    // Summed per account then averaged across active accounts: the total over the count.
    avgMinutesPerActiveAccount: suppressed ? null : Math.round((minutesRead / activeAccounts) * 100) / 100,
    minSampleThreshold: MIN_SAMPLE_THRESHOLD,
    suppressed,
    generatedAt: new Date(Math.max(...months.map((month) => month.fixedAt.getTime()))),
  };
}
