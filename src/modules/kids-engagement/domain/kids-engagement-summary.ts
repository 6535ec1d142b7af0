import type { ReportingWindow } from '../../analytics/index.js';

/**
 * Below this many active accounts, or this many accounts with children's activity, every
 * figure is withheld (contract 2, 4.3, 8; DECISIONS 15).
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

/** The children's engagement summary of contract section 2. */
export interface KidsEngagementSummary {
  periodStart: string;
  periodEnd: string;
  activeAccounts: number | null;
  storiesCompleted: number | null;
  avgMinutesPerActiveAccount: number | null;
  minSampleThreshold: number;
  suppressed: boolean;
  generatedAt: Date;
}

/**
 * The summary, with small-sample suppression: under the threshold a figure could describe
 * a few identifiable families, so no figure is given at all, not even the account count.
 */
export function kidsEngagementSummary(window: ReportingWindow, measures: KidsEngagementMeasures, generatedAt: Date): KidsEngagementSummary {
  const suppressed = measures.activeAccounts < MIN_SAMPLE_THRESHOLD || measures.accountsWithActivity < MIN_SAMPLE_THRESHOLD;
  return {
    periodStart: window.start,
    periodEnd: window.end,
    activeAccounts: suppressed ? null : measures.activeAccounts,
    storiesCompleted: suppressed ? null : measures.storiesCompleted,
    // Summed per account then averaged across active accounts: the total over the count.
    avgMinutesPerActiveAccount: suppressed ? null : Math.round((measures.minutesRead / measures.activeAccounts) * 100) / 100,
    minSampleThreshold: MIN_SAMPLE_THRESHOLD,
    suppressed,
    generatedAt,
  };
}
