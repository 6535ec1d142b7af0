import { Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Interval } from '@nestjs/schedule';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { chapterIdOf } from '../../catalog/index.js';
import { featuresOf } from '../../entitlements/index.js';
import { WebhookEventPublisher } from '../../webhooks/index.js';
import { nextUnlockStep, UnlockScheduleRepository, type ScheduledUnlock } from '../domain/unlock-schedule.js';

/** How often the job looks for due unlocks: well inside the 2 minutes a notification may take. */
const RUN_INTERVAL_MS = 30_000;
/** Rows per transaction: each batch commits its events and its schedule moves together. */
const BATCH_SIZE = 200;

export interface UnlockRunResult {
  /** Schedule rows worked on (a row is worked on once per chapter announced). */
  steps: number;
  /** Events written. */
  announced: number;
}

/**
 * Announces released chapters as `chapter.unlocked` (DECISIONS 23). Exactly once across
 * replicas and restarts: a due row is locked (other replicas skip it), and the event is
 * written in the same transaction that moves the row to its next chapter, so a crash undoes
 * both. After downtime the backlog is worked through earliest first, one chapter per row per
 * batch, so each reader's chapters are announced in order.
 */
@Injectable()
export class ChapterUnlockJob {
  private readonly logger = new Logger('ChapterUnlocks');
  private running = false;

  constructor(
    private readonly schedule: UnlockScheduleRepository,
    private readonly publisher: WebhookEventPublisher,
    private readonly unitOfWork: UnitOfWork,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Interval('chapter-unlocks', RUN_INTERVAL_MS)
  async onSchedule(): Promise<void> {
    // Scheduled work is the service's: the CLI builds the same modules without an HTTP server.
    if (!this.adapterHost.httpAdapter || this.running) return;
    this.running = true;
    try {
      await this.runOnce();
    } catch (error) {
      this.logger.error({ msg: 'chapter unlock run failed', err: String(error) });
    } finally {
      this.running = false;
    }
  }

  /**
   * Works through everything due at `now` (unset: real time, read again for each batch, so
   * that a live unlock falling due during a long sandbox backlog is claimed next). A row
   * announced moves on to its next chapter, which may be due too (after downtime): batches
   * go on until none is left. It ends, as every step moves a row forward or drops it.
   */
  async runOnce(now?: Date, testClockId: string | null = null): Promise<UnlockRunResult> {
    const total: UnlockRunResult = { steps: 0, announced: 0 };
    for (;;) {
      const at = now ?? new Date();
      const batch = await this.unitOfWork.run(() => this.runBatch(at, testClockId));
      if (batch.steps === 0) return total;
      addTo(total, batch);
    }
  }

  /**
   * What a test clock's advance to `until` crosses (DECISIONS 28): the live job's steps, run
   * at each instant of the clock's rows in turn, earliest first, as if the job had run at
   * that moment; so the events come in instant order. Each run moves every row due at its
   * instant to a later one (or drops it), so this ends. Call it inside the advance's unit of
   * work: a crash undoes all of it, and the retried advance finds the same rows.
   */
  async runOnClock(testClockId: string, until: Date): Promise<UnlockRunResult> {
    const total: UnlockRunResult = { steps: 0, announced: 0 };
    for (;;) {
      const instant = await this.schedule.earliestOnClock(testClockId);
      if (!instant || instant.getTime() > until.getTime()) return total;
      addTo(total, await this.runOnce(instant, testClockId));
    }
  }

  private async runBatch(now: Date, testClockId: string | null): Promise<UnlockRunResult> {
    const rows = await this.schedule.claimDue(now, BATCH_SIZE, testClockId);
    const states = await this.schedule.readerStates(rows);
    let announced = 0;
    for (const [i, row] of rows.entries()) {
      const features = featuresOf(states[i].grants);
      const step = nextUnlockStep(row, { ...states[i], earlyAccess: features.earlyAccess }, now);
      if (step.kind === 'stop') await this.schedule.moveTo(row, null);
      else if (step.kind === 'wait') await this.schedule.moveTo(row, { nextChapter: row.nextChapter, nextUnlockAt: step.nextUnlockAt });
      else {
        // A subscriber without a reading entitlement cannot read the chapter: no news to send.
        if (step.emit && features.reading && (await this.announce(row, step.chapter, step.releasedAt))) announced += 1;
        await this.schedule.moveTo(row, step.next);
      }
    }
    return { steps: rows.length, announced };
  }

  private async announce(row: ScheduledUnlock, chapter: number, releasedAt: Date): Promise<boolean> {
    const event = await this.publisher.chapterUnlocked(
      row.tenant,
      { subscriber_id: row.subscriberId, novel_id: row.novelId, chapter_number: chapter, chapter_id: chapterIdOf(row.novelId, chapter) },
      releasedAt,
      // A test clock's instant is not real time: the endpoints registered now receive it.
      row.testClockId === null ? releasedAt : new Date(),
    );
    return event !== null;
  }
}

function addTo(total: UnlockRunResult, run: UnlockRunResult): void {
  total.steps += run.steps;
  total.announced += run.announced;
}
