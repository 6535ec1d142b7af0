import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { TestClock } from '../domain/test-clock.js';
import { TestClockRepository } from '../domain/test-clock.repository.js';

interface ClockRow {
  id: string;
  name: string | null;
  frozenTime: Date;
  createdAt: Date;
  subscriberIds: string[];
}

/** The partner's clocks with their subscribers; `where` narrows it (its parameters follow the partner's, $1). */
const CLOCKS = (where: string) => `
  SELECT c.id, c.name, c.frozen_time AS "frozenTime", c.created_at AS "createdAt",
         coalesce(array_agg(s.subscriber_id ORDER BY s.attached_at, s.subscriber_id) FILTER (WHERE s.subscriber_id IS NOT NULL), '{}') AS "subscriberIds"
    FROM test_clocks c LEFT JOIN test_clock_subscribers s ON s.clock_id = c.id
   WHERE c.partner_id = $1 ${where}
   GROUP BY c.id
   ORDER BY c.created_at, c.id`;

const CLOCK_OF_SUBSCRIBER = `SELECT c.id, c.frozen_time AS "frozenTime" FROM test_clock_subscribers s JOIN test_clocks c ON c.id = s.clock_id
  WHERE s.partner_id = $1 AND s.subscriber_id = $2`;

@Injectable()
export class PgTestClockRepository extends TestClockRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async createWithin(limit: number, partnerId: string, clock: { name: string | null; frozenTime: Date }): Promise<TestClock | null> {
    // Held until commit: the count, taken after the lock, sees every clock created before.
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`test_clocks:${partnerId}`]);
    const [{ n }] = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM test_clocks WHERE partner_id = $1`, [partnerId]);
    if (n >= limit) return null;
    const [row] = await this.db.query<ClockRow>(
      `INSERT INTO test_clocks (partner_id, name, frozen_time) VALUES ($1, $2, $3)
       RETURNING id, name, frozen_time AS "frozenTime", created_at AS "createdAt", '{}'::text[] AS "subscriberIds"`,
      [partnerId, clock.name, clock.frozenTime],
    );
    return row;
  }

  list(partnerId: string): Promise<TestClock[]> {
    return this.db.query<ClockRow>(CLOCKS(''), [partnerId]);
  }

  async find(partnerId: string, id: string): Promise<TestClock | null> {
    const [row] = await this.db.query<ClockRow>(CLOCKS('AND c.id = $2'), [partnerId, id]);
    return row ?? null;
  }

  async lock(partnerId: string, id: string): Promise<TestClock | null> {
    const locked = await this.db.query(`SELECT FROM test_clocks WHERE partner_id = $1 AND id = $2 FOR UPDATE`, [partnerId, id]);
    return locked.length === 0 ? null : this.find(partnerId, id);
  }

  async clockOf(partnerId: string, subscriberId: string, { holdUntilCommit = false } = {}): Promise<{ id: string; frozenTime: Date } | null> {
    const [row] = holdUntilCommit
      ? await this.db.prepared<{ id: string; frozenTime: Date }>('test-clocks.clock-of-subscriber-held', `${CLOCK_OF_SUBSCRIBER} FOR SHARE`, [
          partnerId,
          subscriberId,
        ])
      : await this.db.prepared<{ id: string; frozenTime: Date }>('test-clocks.clock-of-subscriber', CLOCK_OF_SUBSCRIBER, [partnerId, subscriberId]);
    return row ?? null;
  }

  async attach(partnerId: string, clockId: string, subscriberId: string): Promise<boolean> {
    // ON CONFLICT waits for a concurrent attach of the subscriber (to another clock) and yields to it.
    const attached = await this.db.query(
      `INSERT INTO test_clock_subscribers (partner_id, subscriber_id, clock_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING clock_id`,
      [partnerId, subscriberId, clockId],
    );
    return attached.length === 1;
  }

  async setFrozenTime(id: string, frozenTime: Date): Promise<void> {
    await this.db.query(`UPDATE test_clocks SET frozen_time = $2 WHERE id = $1`, [id, frozenTime]);
  }

  async delete(id: string): Promise<void> {
    await this.db.query(`DELETE FROM test_clocks WHERE id = $1`, [id]);
  }
}
