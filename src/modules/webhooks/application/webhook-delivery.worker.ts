import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AppConfig } from '../../../config/app-config.js';
import { ShutdownSignal } from '../../../shared/shutdown-signal.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/** Pause after a failed poll (the database is unreachable, say), so the log is not flooded. */
const PAUSE_AFTER_ERROR_MS = 5_000;

/**
 * Polls for due deliveries in every service process that mounts the platform surface
 * (WEBHOOK_WORKER=false turns it off). Replicas may run it side by side: claims never
 * overlap. Up to WEBHOOK_CONCURRENCY attempts run at once, of which one partner and
 * environment may hold WEBHOOK_PARTNER_CONCURRENCY across replicas, so a slow receiver
 * holds up only its own partner. A slot freed by one attempt is filled at once.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly inFlight = new Set<Promise<void>>();
  private running?: Promise<void>;
  private stopping = false;
  private wakeUp?: () => void;

  constructor(
    private readonly delivery: WebhookDeliveryService,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(AppConfig) private readonly config: AppConfig,
    shutdown: ShutdownSignal,
  ) {
    // Claims nothing more from the moment a shutdown begins; attempts in flight finish.
    shutdown.onBegin(() => {
      this.stopping = true;
      this.wakeUp?.();
    });
  }

  onApplicationBootstrap(): void {
    // The CLI builds the same modules without an HTTP server; it must not deliver.
    const serviceProcess = Boolean(this.adapterHost.httpAdapter);
    if (!serviceProcess || !this.config.webhookWorkerEnabled || !this.config.mounts('platform')) return;
    this.running = this.run();
  }

  /**
   * Stops polling and waits for the attempts in flight to be recorded (each ends within
   * the timeout). Before, not on, application shutdown: the database pool closes then.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const free = this.config.webhookConcurrency - this.inFlight.size;
      if (free === 0) {
        await Promise.race(this.inFlight);
        continue;
      }
      let claimed: number;
      try {
        const claims = await this.delivery.claimDue(free);
        for (const claim of claims) this.track(this.delivery.attempt(claim));
        claimed = claims.length;
      } catch (error) {
        this.logger.error({ msg: 'webhook delivery poll failed', err: String(error) });
        await this.pause(PAUSE_AFTER_ERROR_MS);
        continue;
      }
      // Nothing more is due, or only for partners at their share: wait for the next poll,
      // or for an attempt to end, which may give its partner room again.
      if (claimed < free) await Promise.race([this.pause(this.config.webhookPollIntervalMs), ...this.inFlight]);
    }
    await Promise.all(this.inFlight);
  }

  private track(attempt: Promise<void>): void {
    const tracked: Promise<void> = attempt
      .catch((error: unknown) => this.logger.error({ msg: 'webhook delivery attempt failed', err: String(error) }))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  /** Waits `ms`, or less when shutdown begins. */
  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    });
  }
}
