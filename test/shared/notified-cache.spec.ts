import { jest } from '@jest/globals';
import type { PgNotifications } from '../../src/shared/persistence/pg-notifications.js';
import { NotifiedCache } from '../../src/shared/persistence/notified-cache.js';

/** Stands for the LISTEN connection: records the order of events, and delivers notifications on demand. */
class Channel {
  readonly events: string[] = [];
  private listener?: (payload: string) => void;

  asNotifications(): PgNotifications {
    return {
      listen: async (channel: string, listener: (payload: string) => void) => {
        this.events.push(`listen ${channel}`);
        this.listener = listener;
        return () => undefined;
      },
    } as unknown as PgNotifications;
  }

  notify(payload: string): void {
    this.listener?.(payload);
  }
}

/** A loader whose loads finish when the test says, each answering `key@n` for its nth load. */
function controlledLoader(channel: Channel) {
  const pending: (() => void)[] = [];
  let loads = 0;
  const load = (key: string) => {
    const n = ++loads;
    channel.events.push(`load ${key}`);
    return new Promise<string>((resolve) => pending.push(() => resolve(`${key}@${n}`)));
  };
  // Loads start once the cache has awaited its LISTEN: let that happen first.
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const finishAll = async () => {
    await settle();
    while (pending.length > 0) pending.shift()!();
    await settle();
  };
  return { load, finishAll };
}

describe('NotifiedCache', () => {
  it('listens before its first load, loads a key once, and reloads it after a notification naming it', async () => {
    const channel = new Channel();
    const loader = controlledLoader(channel);
    const cache = new NotifiedCache(channel.asNotifications(), 'changes', loader.load);
    const first = cache.get('live');
    const concurrent = cache.get('live');
    await loader.finishAll();
    expect([await first, await concurrent]).toEqual(['live@1', 'live@1']);
    expect(channel.events).toEqual(['listen changes', 'load live']);
    channel.notify('sandbox');
    expect(await cache.get('live')).toBe('live@1');
    channel.notify('live');
    const reloaded = cache.get('live');
    await loader.finishAll();
    expect(await reloaded).toBe('live@2');
  });

  it('never keeps a load that a notification overtook: it may have read data older than the commit', async () => {
    const channel = new Channel();
    const loader = controlledLoader(channel);
    const cache = new NotifiedCache(channel.asNotifications(), 'changes', loader.load);
    const overtaken = cache.get('live');
    await new Promise((resolve) => setImmediate(resolve));
    channel.notify('live');
    await loader.finishAll();
    expect(await overtaken).toBe('live@1');
    const next = cache.get('live');
    await loader.finishAll();
    expect(await next).toBe('live@2');
  });

  it('drops every key on an empty notification (the connection was lost and notifications may be missing)', async () => {
    const channel = new Channel();
    const loader = controlledLoader(channel);
    const cache = new NotifiedCache(channel.asNotifications(), 'changes', loader.load);
    const both = Promise.all([cache.get('live'), cache.get('sandbox')]);
    await loader.finishAll();
    await both;
    channel.notify('');
    const again = Promise.all([cache.get('live'), cache.get('sandbox')]);
    await loader.finishAll();
    expect(await again).toEqual(['live@3', 'sandbox@4']);
  });

  it('reads a key again once its entry is older than maxAgeMs, for changes no notification announces; 0 keeps nothing', async () => {
    const channel = new Channel();
    let loads = 0;
    // The clock is Jest's: a busy machine must not age the entry between two reads.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const aged = new NotifiedCache(channel.asNotifications(), 'changes', async (key) => `${key}@${++loads}`, 50);
      expect(await aged.get('live')).toBe('live@1');
      jest.setSystemTime(Date.now() + 49);
      expect(await aged.get('live')).toBe('live@1');
      jest.setSystemTime(Date.now() + 1); // 50 ms old: loaded again
      expect(await aged.get('live')).toBe('live@2');
    } finally {
      jest.useRealTimers();
    }
    const uncached = new NotifiedCache(channel.asNotifications(), 'changes', async (key) => `${key}@${++loads}`, 0);
    expect([await uncached.get('live'), await uncached.get('live')]).toEqual(['live@3', 'live@4']);
  });

  it('does not keep a failed load', async () => {
    const channel = new Channel();
    let fail = true;
    const cache = new NotifiedCache(channel.asNotifications(), 'changes', async (key) => {
      if (fail) throw new Error('database unavailable');
      return key;
    });
    await expect(cache.get('live')).rejects.toThrow('database unavailable');
    fail = false;
    expect(await cache.get('live')).toBe('live');
  });
});
