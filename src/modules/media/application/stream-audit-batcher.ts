import { Injectable } from '@nestjs/common';
import { StreamAuditRepository, type StreamIssued } from '../domain/stream-audit.repository.js';

/** Rows per statement at most: a bound on one INSERT's size under a burst. */
const MAX_BATCH = 500;

interface Pending {
  entry: StreamIssued;
  written: () => void;
  failed: (error: unknown) => void;
}

/**
 * Writes stream audit rows by group commit: a request waits until its row is committed
 * (a URL is never handed out unaudited, whatever crashes), but the rows of requests that
 * arrive while a write is in flight go together in the next one. Idle, a row costs one
 * statement as before; under load, one statement serves many requests, and no row waits
 * longer than the write ahead of it plus its own.
 */
@Injectable()
export class StreamAuditBatcher {
  private queue: Pending[] = [];
  private writing = false;

  constructor(private readonly audit: StreamAuditRepository) {}

  record(entry: StreamIssued): Promise<void> {
    return new Promise((written, failed) => {
      this.queue.push({ entry, written, failed });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.audit.appendAll(batch.map((pending) => pending.entry));
        for (const pending of batch) pending.written();
      } catch (error) {
        for (const pending of batch) pending.failed(error);
      }
    }
    this.writing = false;
  }
}
