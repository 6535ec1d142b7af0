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
   * Active accounts with children's activity in the period. The partner writes its own
   * entitlements, so the active count alone could be inflated around one real child.
   */
  accountsWithActivity: number;
  storiesCompleted: number;
  /** Minutes read by the active accounts, all their children together. */
  minutesRead: number;
}

/** The children's engagement summary of contract section 2. */
export interface KidsEngagementSummary {
  period_start: string;
  period_end: string;
  active_accounts: number | null;
  stories_completed: number | null;
  avg_minutes_per_active_account: number | null;
  min_sample_threshold: number;
  suppressed: boolean;
  generated_at: string;
}

/**
 * The summary, with small-sample suppression: under the threshold a figure could describe
 * a few identifiable families, so no figure is given at all, not even the account count.
 */
export function kidsEngagementSummary(window: ReportingWindow, measures: KidsEngagementMeasures, generatedAt: Date): KidsEngagementSummary {
  const suppressed = measures.activeAccounts < MIN_SAMPLE_THRESHOLD || measures.accountsWithActivity < MIN_SAMPLE_THRESHOLD;
  return {
    period_start: window.start,
    period_end: window.end,
    active_accounts: suppressed ? null : measures.activeAccounts,
    stories_completed: suppressed ? null : measures.storiesCompleted,
    // Summed per account then averaged across active accounts: the total over the count.
    avg_minutes_per_active_account: suppressed ? null : Math.round((measures.minutesRead / measures.activeAccounts) * 100) / 100,
    min_sample_threshold: MIN_SAMPLE_THRESHOLD,
    suppressed,
    generated_at: generatedAt.toISOString(),
  };
}
