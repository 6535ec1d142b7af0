import type { Environment } from '../../../shared/tenancy/tenant.js';

/** One stream URL handed to a partner: who asked, for whom, for what, and until when (DECISIONS 11). */
export interface StreamIssued {
  partnerId: string;
  environment: Environment;
  clientId: string;
  subscriberId: string;
  novelId: string;
  chapterNumber: number;
  issuedAt: Date;
  expiresAt: Date;
}

/** Whom a stream URL is issued to: the audit row without its instants. */
export type StreamRecipient = Omit<StreamIssued, 'issuedAt' | 'expiresAt'>;

/** The audit log of issued stream URLs: append-only, one row per URL. */
export abstract class StreamAuditRepository {
  /** Appends every entry in one statement: all of them are written, or none. */
  abstract appendAll(entries: readonly StreamIssued[]): Promise<void>;
}
