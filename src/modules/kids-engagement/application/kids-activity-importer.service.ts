import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { InvalidKidsActivityLine, KidsImportRejected, parseKidsActivityLine, type KidsActivityRecord } from '../domain/kids-activity.js';
import { KidsActivityRepository } from '../domain/kids-activity.repository.js';

export interface KidsImportResult {
  /** Lines read, blank ones included, so the count matches an editor's line numbers. */
  lines: number;
  records: number;
  inserted: number;
  updated: number;
}

const BATCH_SIZE = 1000;
/** Enough problems to fix a file in one pass without flooding the terminal. */
const MAX_REPORTED_PROBLEMS = 20;

/**
 * `kids:import` (DECISIONS 18): children's reading sessions from an NDJSON stream, for the
 * partner's live environment (the kids service has no sandbox data set). Validated line by
 * line and stored in one transaction: a bad line anywhere imports nothing.
 */
@Injectable()
export class KidsActivityImporter {
  constructor(
    private readonly activities: KidsActivityRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  import(partnerId: string, lines: AsyncIterable<string> | Iterable<string>): Promise<KidsImportResult> {
    const tenant: Tenant = { partnerId, environment: 'live' };
    return this.unitOfWork.run(async () => {
      const result: KidsImportResult = { lines: 0, records: 0, inserted: 0, updated: 0 };
      const problems: InvalidKidsActivityLine[] = [];
      let batch: KidsActivityRecord[] = [];
      const store = async () => {
        const counts = await this.activities.upsert(tenant, batch);
        result.inserted += counts.inserted;
        result.updated += counts.updated;
        batch = [];
      };
      for await (const line of lines) {
        result.lines += 1;
        if (!line.trim()) continue;
        try {
          batch.push(parseKidsActivityLine(line, result.lines));
          result.records += 1;
        } catch (error) {
          if (!(error instanceof InvalidKidsActivityLine)) throw error;
          problems.push(error);
          if (problems.length === MAX_REPORTED_PROBLEMS) break;
        }
        // Once a line is bad nothing will be kept: only validate the rest.
        if (problems.length) batch = [];
        else if (batch.length === BATCH_SIZE) await store();
      }
      // Throwing rolls back the batches already stored.
      if (problems.length) throw new KidsImportRejected(problems);
      if (batch.length) await store();
      return result;
    });
  }
}
