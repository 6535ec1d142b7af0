import { ApiError, FeedGapError } from './errors.js';
import { sleep, type RetryOptions } from './retry.js';
import type { Output, PartnerEvent } from './types.js';

/**
 * Where the feed iterator keeps the last `seq` you processed, so a restarted consumer reads
 * on from there: a row in your database (best: saved in the same transaction as the effects
 * of the event), a file (`fileCheckpoint`), or memory (`memoryCheckpoint`).
 */
export interface Checkpoint {
  /** The last `seq` processed, or undefined (or 0) to start from the oldest event kept. */
  load(): Promise<number | undefined> | number | undefined;
  save(seq: number): Promise<void> | void;
}

export interface EventFeedOptions {
  /** Read the events after this `seq` (default: the checkpoint's, else where `start` says). */
  after?: number;
  /**
   * Where a consumer without `after` or a saved checkpoint starts: `oldest` (default), the
   * oldest event kept, or `now`, after the latest event (found in a few reads of the feed),
   * saved to the checkpoint at once so that a restart goes on from there.
   */
  start?: 'oldest' | 'now';
  /** Loaded at the start and saved after each event you processed. */
  checkpoint?: Checkpoint;
  /** Events per request, 1 to 500 (default 100). */
  limit?: number;
  /** Long-poll seconds, 1 to 30 (default 30): how long one request waits for the next event. */
  wait?: number;
  /** Keep waiting for new events (default true); false ends the iteration once caught up. */
  follow?: boolean;
  /** Ends the iteration (quietly, between events) when it aborts. */
  signal?: AbortSignal;
  /** Retries of one read (default: for ever, so a consumer outlives outages and restarts of the service). */
  retry?: RetryOptions;
}

type FeedPage = Output<'readEventFeed'>;
type ReadFeed = (
  query: { after: number; limit: number; wait: number },
  options: { signal?: AbortSignal | undefined; timeoutMs: number; retry: RetryOptions },
) => Promise<FeedPage>;

/** Pause before re-reading a page that skipped a seq: the one missing may still be committing. */
const GAP_REREAD_MS = 1_000;

/**
 * The event feed as an async iterator, in `seq` order, each event once: it yields events
 * strictly after the last one it yielded (never a duplicate), checks that each follows the
 * one before it (never a gap: re-reads once, else throws FeedGapError), saves the checkpoint
 * when the loop asks for the next event (so the event before is processed), and retries
 * failed reads, with `Retry-After` and backoff, across outages and restarts of the service.
 * A 410 `events_expired` (a checkpoint older than the 90 days kept) ends it with that ApiError.
 */
export async function* eventFeed(read: ReadFeed, options: EventFeedOptions = {}): AsyncGenerator<PartnerEvent, void, undefined> {
  const { checkpoint, signal, limit = 100, follow = true } = options;
  const wait = follow ? (options.wait ?? 30) : 0;
  let after = options.after ?? (await checkpoint?.load());
  if (after === undefined && options.start === 'now') {
    after = await latestSeq((probe) =>
      read({ after: probe, limit: 1, wait: 0 }, { signal, timeoutMs: 15_000, retry: { maxRetries: Infinity, ...options.retry } }),
    );
    await checkpoint?.save(after);
  }
  after ??= 0;
  let reread = false;
  while (!signal?.aborted) {
    let page: FeedPage;
    try {
      page = await read(
        { after, limit, wait },
        // The request is held up to `wait` seconds: its time limit is longer.
        { signal, timeoutMs: wait * 1000 + 15_000, retry: { maxRetries: Infinity, ...options.retry } },
      );
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    let gap = false;
    for (const item of page.data) {
      if (item.seq <= after) continue;
      if (after > 0 && item.seq !== after + 1) {
        if (reread) throw new FeedGapError(after, item.seq);
        gap = true;
        break;
      }
      reread = false;
      yield item as PartnerEvent;
      // The loop asked for the next event: the one before is processed.
      after = item.seq;
      await checkpoint?.save(after);
      if (signal?.aborted) return;
    }
    if (gap) {
      reread = true;
      await sleep(GAP_REREAD_MS, signal).catch(() => undefined);
      continue;
    }
    if (!follow && !page.has_more) return;
  }
}

/**
 * The latest `seq` of the feed, which has no "latest" query: a seq `x` is below it when
 * reading after `x` finds an event (or answers 410 `events_expired`: later events exist).
 * Seqs grow by one without gaps, so doubling `x` and then halving the interval finds it in
 * about 2·log2(latest) reads of one event each (40 for a million events).
 */
async function latestSeq(readOne: (after: number) => Promise<FeedPage>): Promise<number> {
  const below = async (seq: number) => {
    try {
      const page = await readOne(seq);
      return page.data.length > 0;
    } catch (error) {
      if (error instanceof ApiError && error.status === 410 && error.error === 'events_expired') return true;
      throw error;
    }
  };
  if (!(await below(0))) return 0;
  let low = 0;
  let high = 1;
  while (await below(high)) [low, high] = [high, high * 2];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await below(middle)) low = middle;
    else high = middle;
  }
  return high;
}

/** A checkpoint in memory (`seq` is the last saved): for tests, or a consumer that starts from a known point. */
export function memoryCheckpoint(initial?: number): Checkpoint & { seq: number | undefined } {
  return {
    seq: initial,
    load() {
      return this.seq;
    },
    save(seq) {
      this.seq = seq;
    },
  };
}
