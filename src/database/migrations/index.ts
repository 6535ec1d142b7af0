import { Platform1763900000000 } from './1763900000000-platform.js';
import { Reading1763900100000 } from './1763900100000-reading.js';
import { RateLimits1763900150000 } from './1763900150000-rate-limits.js';
import { Webhooks1763900300000 } from './1763900300000-webhooks.js';
import { ReadingRollup1763900400000 } from './1763900400000-reading-rollup.js';
import { KidsActivity1763900410000 } from './1763900410000-kids-activity.js';
import { StreamUrlAudit1763900500000 } from './1763900500000-stream-url-audit.js';
import { WebhookFairDelivery1763900600000 } from './1763900600000-webhook-fair-delivery.js';
import { EntitlementOrdering1763900700000 } from './1763900700000-entitlement-ordering.js';
import { EventFeed1763900710000 } from './1763900710000-event-feed.js';
import { ChapterUnlockSchedule1763900720000 } from './1763900720000-chapter-unlock-schedule.js';
import { MonthlyPartitions1763900800000 } from './1763900800000-monthly-partitions.js';
import { ActivityWriteCost1763900900000 } from './1763900900000-activity-write-cost.js';
import { WebhookBacklogCost1764100000000 } from './1764100000000-webhook-backlog-cost.js';
import { ServerSecretFingerprint1764100100000 } from './1764100100000-server-secret-fingerprint.js';
import { TestClocks1764100200000 } from './1764100200000-test-clocks.js';
import { EngagementDayCounts1764100300000 } from './1764100300000-engagement-day-counts.js';
import { EntitlementCounts1764100400000 } from './1764100400000-entitlement-counts.js';
import { EntitlementDayPeaks1764100500000 } from './1764100500000-entitlement-day-peaks.js';
import { WebhookDeliveryCounts1764100600000 } from './1764100600000-webhook-delivery-counts.js';
import { ProgressReportIndexes1764100700000 } from './1764100700000-progress-report-indexes.js';
import { KidsSummaryCounts1764100800000 } from './1764100800000-kids-summary-counts.js';
import { KidsFixedMonths1764200000000 } from './1764200000000-kids-fixed-months.js';
import { SubscriberErasure1764200100000 } from './1764200100000-subscriber-erasure.js';
import { IdempotencyKeys1764200300000 } from './1764200300000-idempotency-keys.js';
import { UnlockScheduleTenantDue1764200500000 } from './1764200500000-unlock-schedule-tenant-due.js';
import { OperatorAudit1764200600000 } from './1764200600000-operator-audit.js';
import { IdempotencySealedAnswers1764200730000 } from './1764200730000-idempotency-sealed-answers.js';
import { EngagementMonthCounts1764200810000 } from './1764200810000-engagement-month-counts.js';
import { WebhookQueueVacuum1764200900000 } from './1764200900000-webhook-queue-vacuum.js';
import { ReadingActivityBySubscriber1764201000000 } from './1764201000000-reading-activity-by-subscriber.js';

/** Every migration, in order of its timestamp. `npm run migration:generate` writes this file. */
export const MIGRATIONS = [
  Platform1763900000000,
  Reading1763900100000,
  RateLimits1763900150000,
  Webhooks1763900300000,
  ReadingRollup1763900400000,
  KidsActivity1763900410000,
  StreamUrlAudit1763900500000,
  WebhookFairDelivery1763900600000,
  EntitlementOrdering1763900700000,
  EventFeed1763900710000,
  ChapterUnlockSchedule1763900720000,
  MonthlyPartitions1763900800000,
  ActivityWriteCost1763900900000,
  WebhookBacklogCost1764100000000,
  ServerSecretFingerprint1764100100000,
  TestClocks1764100200000,
  EngagementDayCounts1764100300000,
  EntitlementCounts1764100400000,
  EntitlementDayPeaks1764100500000,
  WebhookDeliveryCounts1764100600000,
  ProgressReportIndexes1764100700000,
  KidsSummaryCounts1764100800000,
  KidsFixedMonths1764200000000,
  SubscriberErasure1764200100000,
  IdempotencyKeys1764200300000,
  UnlockScheduleTenantDue1764200500000,
  OperatorAudit1764200600000,
  IdempotencySealedAnswers1764200730000,
  EngagementMonthCounts1764200810000,
  WebhookQueueVacuum1764200900000,
  ReadingActivityBySubscriber1764201000000,
];
