import { Injectable, Logger } from '@nestjs/common';
import { WebhookDeliveryRepository, type BacklogFigures } from '../domain/webhook-delivery.repository.js';

/** The figures are read again at most this often, however often they are asked for. */
export const BACKLOG_REFRESH_MS = 15_000;

/**
 * The delivery backlog for operators' gauges (DECISIONS 27: nothing a stranger can reach
 * costs work that grows with the data). The figures come from one read of counts and of one
 * index entry per tenant, made at most every 15 s per replica: a scrape answers the last
 * figures and, when they are older, starts the next read without waiting for it.
 */
@Injectable()
export class WebhookBacklog {
  private readonly logger = new Logger('WebhookBacklog');
  private last?: { figures: BacklogFigures; readAt: number };
  private reading?: Promise<BacklogFigures>;

  constructor(private readonly deliveries: WebhookDeliveryRepository) {}

  async figures(): Promise<BacklogFigures> {
    if (!this.last) return this.read();
    if (Date.now() - this.last.readAt >= BACKLOG_REFRESH_MS) {
      this.read().catch((error: unknown) => this.logger.warn({ err: String(error) }, 'could not read the webhook backlog'));
    }
    return this.last.figures;
  }

  private read(): Promise<BacklogFigures> {
    this.reading ??= this.deliveries
      .backlog()
      .then((figures) => {
        this.last = { figures, readAt: Date.now() };
        return figures;
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
