import { Injectable } from '@nestjs/common';

/**
 * Said once, when the process is asked to stop (SIGTERM), before anything closes: the HTTP
 * layer answers new requests 503 and readiness fails, long polls answer at once, and the
 * webhook worker claims nothing more, while requests and attempts in flight finish.
 */
@Injectable()
export class ShutdownSignal {
  private begun = false;
  private leaving = false;
  private readonly listeners: (() => void)[] = [];
  private refusedRequests = 0;

  get draining(): boolean {
    return this.begun;
  }

  /** Readiness fails from here on (SHUTDOWN_DELAY_SECONDS before the drain, and the drain). */
  get leavingLoadBalancer(): boolean {
    return this.leaving || this.begun;
  }

  /** The pre-stop delay: everything is served as usual but readiness, so a load balancer takes the replica out first. */
  leaveLoadBalancer(): void {
    this.leaving = true;
  }

  /** Calls `listener` when the shutdown begins (at once if it has). */
  onBegin(listener: () => void): void {
    if (this.begun) listener();
    else this.listeners.push(listener);
  }

  /** Requests answered 503 because the drain had begun (for the drain's last log line). */
  get refused(): number {
    return this.refusedRequests;
  }

  recordRefusal(): void {
    this.refusedRequests++;
  }

  begin(): void {
    if (this.begun) return;
    this.begun = true;
    for (const listener of this.listeners) listener();
  }
}
