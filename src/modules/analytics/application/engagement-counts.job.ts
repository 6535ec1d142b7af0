import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { EngagementCountsRepository } from '../domain/engagement-counts.repository.js';

const RUN_INTERVAL_MS = 60_000;
/** Pending deltas per transaction: a run of a busy minute takes a few short transactions. */
const BATCH = 20_000;

/**
 * Folds the engagement report's pending day-count deltas (ADR 0129). One replica at a time
 * (the others find the turn taken and skip the run); a crash undoes only its open batch.
 */
@Injectable()
export class EngagementCountsJob {
  private readonly logger = new Logger(EngagementCountsJob.name);

  constructor(
    private readonly counts: EngagementCountsRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  @Interval('engagement-count-folding', RUN_INTERVAL_MS)
  async run(): Promise<void> {
    try {
      await this.foldAll();
    } catch (error) {
      // The next run tries again; a scheduler callback must not throw.
      this.logger.warn(`Folding engagement counts failed: ${(error as Error).message}`);
    }
  }

  /** Folds until no delta is pending; how many it folded (0 when another replica is at it). */
  async foldAll(): Promise<number> {
    let folded = 0;
    for (;;) {
      const pending = await this.unitOfWork.run(async () => ((await this.counts.takeFoldingTurn()) ? this.counts.fold(BATCH) : 0));
      folded += pending;
      if (pending < BATCH) return folded;
    }
  }
}
