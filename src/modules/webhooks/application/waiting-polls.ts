import { Injectable, Logger } from '@nestjs/common';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { ShutdownSignal } from '../../../shared/shutdown-signal.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EventArrivals, type ArrivalSignal } from '../domain/event-arrivals.js';
import { feedPage, FEED_MAX_LIMIT, FEED_MAX_WAIT_SECONDS, type FeedItem, type FeedPage } from '../domain/event-feed.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';

/** Long polls one credential may hold waiting at once, per replica (DECISIONS 22). */
export const WAITING_POLLS_PER_CREDENTIAL = 10;

interface WaitingPoll {
  after: number;
  limit: number;
  answer(page: FeedPage): void;
}

/** A tenant's waiting polls, woken together. */
interface Room {
  tenant: Tenant;
  polls: Set<WaitingPoll>;
  /** The watch on the tenant's events: its stop function, or undefined when the process is stopping. */
  watching: Promise<(() => void) | undefined>;
  reading: boolean;
  /** A signal arrived during the read: read again, the event may have committed after its snapshot. */
  readAgain: boolean;
}

/**
 * The long polls waiting for a tenant's next event (DECISIONS 22). A waiting poll costs
 * no database work: when a tenant's event commits, one read, from the lowest `after` any
 * of its polls waits on, answers all of them, however many there are. A credential may
 * hold at most 10 waiting polls per replica; one more is refused with 429.
 */
@Injectable()
export class WaitingPolls {
  private readonly logger = new Logger('EventFeed');
  private readonly rooms = new Map<string, Room>();
  private readonly heldByCredential = new Map<string, number>();

  constructor(
    private readonly events: WebhookEventRepository,
    private readonly arrivals: EventArrivals,
    shutdown: ShutdownSignal,
  ) {
    // A stopping process answers its waiting polls at once, with what they have.
    shutdown.onBegin(() => {
      for (const room of this.rooms.values()) void this.wake(room.tenant, room, 'closing');
    });
  }

  /** The page after `after`, waiting up to `waitSeconds` for one when there is none yet. */
  async wait(tenant: Tenant, clientId: string, after: number, limit: number, waitSeconds: number): Promise<FeedPage> {
    const release = this.hold(clientId);
    try {
      const { room, poll, answered } = await this.enter(tenant, after, limit);
      try {
        // Entered before reading: an event committed from here on wakes the room.
        const page = feedPage(after, limit, await this.events.readAfter(tenant, after, limit + 1));
        if (page.items.length > 0 || !room) return page;
        return await Promise.race([answered, delay(waitSeconds * 1000).then(() => page)]);
      } finally {
        if (room && poll) this.leave(tenant, room, poll);
      }
    } finally {
      release();
    }
  }

  private hold(clientId: string): () => void {
    const held = this.heldByCredential.get(clientId) ?? 0;
    if (held >= WAITING_POLLS_PER_CREDENTIAL) {
      throw new DomainError(
        'rate_limited',
        `This credential already holds ${WAITING_POLLS_PER_CREDENTIAL} waiting long polls: wait for one to answer, or poll without wait.`,
        // The quota every 429 states, here of waiting polls (one frees within the 30 s a poll may wait).
        {
          rateLimit: { policy: `"waiting-polls";q=${WAITING_POLLS_PER_CREDENTIAL};w=${FEED_MAX_WAIT_SECONDS}`, remaining: '"waiting-polls";r=0;t=1' },
          retryAfterSeconds: 1,
        },
      );
    }
    this.heldByCredential.set(clientId, held + 1);
    return () => {
      const left = (this.heldByCredential.get(clientId) ?? 1) - 1;
      if (left > 0) this.heldByCredential.set(clientId, left);
      else this.heldByCredential.delete(clientId);
    };
  }

  private async enter(tenant: Tenant, after: number, limit: number): Promise<{ room?: Room; poll?: WaitingPoll; answered: Promise<FeedPage> }> {
    const key = roomKey(tenant);
    let room = this.rooms.get(key);
    if (!room) {
      const created: Room = { tenant, polls: new Set(), watching: Promise.resolve(undefined), reading: false, readAgain: false };
      created.watching = this.arrivals.watch(tenant, (why) => void this.wake(tenant, created, why));
      this.rooms.set(key, (room = created));
    }
    let answer!: (page: FeedPage) => void;
    const answered = new Promise<FeedPage>((resolve) => (answer = resolve));
    const poll = { after, limit, answer };
    room.polls.add(poll);
    // Every poll waits until the room listens, so no event between its read and its wait is missed.
    if (!(await room.watching)) {
      this.leave(tenant, room, poll);
      return { answered };
    }
    return { room, poll, answered };
  }

  private leave(tenant: Tenant, room: Room, poll: WaitingPoll): void {
    room.polls.delete(poll);
    if (room.polls.size > 0) return;
    void room.watching.then((stop) => stop?.());
    if (this.rooms.get(roomKey(tenant)) === room) this.rooms.delete(roomKey(tenant));
  }

  /** One read for every poll of the room; each poll with something new is answered. */
  private async wake(tenant: Tenant, room: Room, why: ArrivalSignal): Promise<void> {
    if (room.reading) {
      room.readAgain = true;
      return;
    }
    room.reading = true;
    try {
      do {
        room.readAgain = false;
        const polls = [...room.polls];
        if (polls.length === 0) break;
        const from = Math.min(...polls.map((poll) => poll.after));
        const read = await this.events.readAfter(tenant, from, FEED_MAX_LIMIT + 1);
        for (const poll of polls) {
          const page = await this.pageFor(tenant, poll, read);
          if (page.items.length > 0 || why === 'closing') poll.answer(page);
        }
      } while (room.readAgain);
    } catch (error) {
      // The polls keep waiting; their deadline still answers them.
      this.logger.warn({ err: String(error) }, 'could not read the event feed for waiting polls');
    } finally {
      room.reading = false;
    }
  }

  /** The poll's page out of the shared read; its own read when the shared one stopped short of what it needs. */
  private async pageFor(tenant: Tenant, poll: WaitingPoll, read: FeedItem[]): Promise<FeedPage> {
    const items = read.filter((item) => item.seq > poll.after);
    const readWasCut = read.length > FEED_MAX_LIMIT;
    if (readWasCut && items.length <= poll.limit) return feedPage(poll.after, poll.limit, await this.events.readAfter(tenant, poll.after, poll.limit + 1));
    return feedPage(poll.after, poll.limit, items);
  }
}

const roomKey = (tenant: Tenant) => `${tenant.partnerId}:${tenant.environment}`;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
