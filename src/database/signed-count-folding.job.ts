import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { SignedCountFolding } from '../shared/persistence/signed-counts.js';

const RUN_INTERVAL_MS = 60_000;

/** Folds the signed-count tables every minute (ADR 0129); a crash undoes only its open batch. */
@Injectable()
export class SignedCountFoldingJob {
  private readonly logger = new Logger('SignedCountFolding');

  constructor(private readonly folding: SignedCountFolding) {}

  @Interval('signed-count-folding', RUN_INTERVAL_MS)
  async run(): Promise<void> {
    try {
      await this.folding.foldAll();
    } catch (error) {
      // Readers sum every row, folded or not: a failed run costs only speed; the next retries.
      this.logger.warn(`Folding signed counts failed: ${(error as Error).message}`);
    }
  }
}
