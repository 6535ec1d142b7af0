import { Injectable } from '@nestjs/common';
import { PartnerCredentialsService, UnknownPartnerError } from '../../identity/index.js';
import { PartnerRowsRepository } from '../domain/partner-rows.repository.js';

/** Rows deleted per statement: each holds its row locks for milliseconds, and others' reads none. */
export const ERASURE_BATCH_ROWS = 2000;

/** `--confirm` named another partner than `--partner`: nothing was touched. */
export class PartnerNameMismatch extends Error {}

export interface PartnerErasure {
  partner_id: string;
  name: string;
  credentials_revoked: number;
  /** Rows deleted by this run, per table (a resumed run counts what was left). */
  rows_deleted: Record<string, number>;
  partner_deleted: true;
}

/**
 * Offboarding (DECISIONS 29, ADR 0142): a partner whose contract ended. Its credentials are
 * revoked first, which every replica sees at commit, so nothing of it is written or read
 * while its rows go; then every table with a `partner_id` is emptied of its rows, both
 * environments, in short batches; the partner row goes last. Interrupted at any point, the
 * partner is still there: running the command again finishes the job.
 */
@Injectable()
export class PartnerErasureService {
  constructor(
    private readonly credentials: PartnerCredentialsService,
    private readonly rows: PartnerRowsRepository,
  ) {}

  async erase(partnerId: string, confirmName: string): Promise<PartnerErasure> {
    const name = await this.rows.partnerName(partnerId);
    if (name === null) throw new UnknownPartnerError(partnerId);
    if (name !== confirmName) throw new PartnerNameMismatch(`--confirm "${confirmName}" is not the name of partner ${partnerId}; nothing was erased`);
    const revoked = await this.credentials.revokeAllOf(partnerId);
    const tables = await this.rows.tablesInDeletionOrder();
    const deleted: Record<string, number> = Object.fromEntries(tables.map(({ table }) => [table, 0]));
    // Work already under way when the credentials stopped (a webhook attempt, a count being
    // folded) may still write a row: sweep again until a whole pass finds nothing.
    for (let found = true; found;) {
      found = false;
      for (const { relation, table } of tables) {
        for (let batch = ERASURE_BATCH_ROWS; batch === ERASURE_BATCH_ROWS;) {
          batch = await this.rows.deleteBatch(relation, partnerId, ERASURE_BATCH_ROWS);
          deleted[table] += batch;
          found ||= batch > 0;
        }
      }
    }
    await this.rows.deletePartner(partnerId);
    return { partner_id: partnerId, name, credentials_revoked: revoked.length, rows_deleted: deleted, partner_deleted: true };
  }
}
