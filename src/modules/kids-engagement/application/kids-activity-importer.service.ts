import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Environment, Tenant } from '../../../shared/tenancy/tenant.js';
import {
  InvalidKidsActivityLine,
  KidsImportIntoFixedMonths,
  KidsImportRejected,
  parseKidsActivityLine,
  type KidsActivityRecord,
} from '../domain/kids-activity.js';
import { KidsActivityRepository } from '../domain/kids-activity.repository.js';
import { KidsMonthFiguresService } from './kids-month-figures.service.js';

export interface KidsImportResult {
  /** Lines read, blank ones included, so the count matches an editor's line numbers. */
  lines: number;
  records: number;
  inserted: number;
  updated: number;
  /** The fixed months (YYYY-MM-01) whose figures the import replaced (`restate` only). */
  restated: string[];
}

export interface KidsImportOptions {
  /** The partner's sandbox sessions instead of its live ones. */
  environment?: Environment;
  /** Replace the figures of the fixed months the file touches, instead of refusing it (DECISIONS 15). */
  restate?: boolean;
}

const BATCH_SIZE = 1000;
/** Enough problems to fix a file in one pass without flooding the terminal. */
const MAX_REPORTED_PROBLEMS = 20;

/**
 * `kids:import` (DECISIONS 18): children's reading sessions from an NDJSON stream, for the
 * partner's live or sandbox environment. Validated line by line and stored in one
 * transaction: a bad line anywhere imports nothing, and so does a line in a month whose
 * figures are fixed, unless the import restates them (DECISIONS 15, ADR 0136).
 */
@Injectable()
export class KidsActivityImporter {
  constructor(
    private readonly activities: KidsActivityRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly monthFigures: KidsMonthFiguresService,
  ) {}

  import(partnerId: string, lines: AsyncIterable<string> | Iterable<string>, options: KidsImportOptions = {}): Promise<KidsImportResult> {
    const tenant: Tenant = { partnerId, environment: options.environment ?? 'live' };
    return this.unitOfWork.run(async () => {
      // First: no month is fixed while this transaction writes, so the check below holds at commit.
      await this.monthFigures.holdForImport(tenant);
      const result: KidsImportResult = { lines: 0, records: 0, inserted: 0, updated: 0, restated: [] };
      const problems: InvalidKidsActivityLine[] = [];
      const touched = new Set<string>();
      let batch: KidsActivityRecord[] = [];
      const store = async () => {
        const counts = await this.activities.upsert(tenant, batch);
        result.inserted += counts.inserted;
        result.updated += counts.updated;
        for (const month of counts.months) touched.add(month);
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
      const months = [...touched].sort();
      if (!options.restate) {
        const fixed = await this.monthFigures.fixedAmong(tenant, months);
        if (fixed.length) throw new KidsImportIntoFixedMonths(fixed);
      } else {
        result.restated = await this.monthFigures.restate(tenant, months);
      }
      return result;
    });
  }
}
