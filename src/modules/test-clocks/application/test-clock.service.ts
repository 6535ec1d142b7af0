import { Injectable } from '@nestjs/common';
import { DomainError, invalidRequest } from '../../../shared/errors/domain-error.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { SubscriberDataRegistry } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { RateLimiter, type BucketPolicy } from '../../rate-limiting/index.js';
import { ChapterUnlockJob } from '../../reading/index.js';
import {
  ADVANCE_BURST,
  ADVANCES_PER_HOUR,
  advanceDecision,
  CLOCKS_PER_PARTNER,
  EVENTS_PER_HOUR,
  frozenTimeRefusal,
  SUBSCRIBERS_PER_CLOCK,
  type TestClock,
} from '../domain/test-clock.js';
import { TestClockRepository } from '../domain/test-clock.repository.js';

const ADVANCES: BucketPolicy = { name: 'test-clock-advances', ratePerSecond: ADVANCES_PER_HOUR / 3600, burst: ADVANCE_BURST };
const EVENTS: BucketPolicy = { name: 'test-clock-events', ratePerSecond: EVENTS_PER_HOUR / 3600, burst: EVENTS_PER_HOUR };

/**
 * Deleting a clock erases its subscribers' sandbox data: the token must hold the scope that
 * writes each kind of it (ADR 0128), not only the clocks' own scope.
 */
export const ERASING_SCOPES = ['platform:entitlements:write', 'textapp:progress:write', 'audioapp:playback:write'] as const;

/**
 * Sandbox test clocks (DECISIONS 28). Every change of one clock (attach, advance, delete)
 * runs in one transaction that holds the clock's row: two replicas acting on one clock
 * take turns, and a crash leaves the clock as it was before.
 */
@Injectable()
export class TestClockService {
  constructor(
    private readonly clocks: TestClockRepository,
    private readonly unlocks: ChapterUnlockJob,
    private readonly subscriberData: SubscriberDataRegistry,
    private readonly unitOfWork: UnitOfWork,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async create(tenant: Tenant, clock: { name: string | null; frozenTime: Date }): Promise<TestClock> {
    sandboxOnly(tenant);
    const refusal = frozenTimeRefusal(clock.frozenTime, new Date());
    if (refusal) throw invalidRequest(refusal);
    const created = await this.unitOfWork.run(() => this.clocks.createWithin(CLOCKS_PER_PARTNER, tenant.partnerId, clock));
    if (!created) throw new DomainError('limit_reached', `This partner already has ${CLOCKS_PER_PARTNER} test clocks: delete one first.`);
    return created;
  }

  list(tenant: Tenant): Promise<TestClock[]> {
    sandboxOnly(tenant);
    return this.clocks.list(tenant.partnerId);
  }

  async get(tenant: Tenant, id: string): Promise<TestClock> {
    sandboxOnly(tenant);
    return (await this.clocks.find(tenant.partnerId, id)) ?? notFound(id);
  }

  /**
   * Attaches a sandbox subscriber that has no sandbox data yet: its whole history then lives
   * on the clock. Attaching it to the same clock again changes nothing.
   */
  attach(tenant: Tenant, id: string, subscriberId: string): Promise<TestClock> {
    sandboxOnly(tenant);
    return this.unitOfWork.run(async () => {
      const clock = (await this.clocks.lock(tenant.partnerId, id)) ?? notFound(id);
      if (clock.subscriberIds.includes(subscriberId)) return clock;
      const other = await this.clocks.clockOf(tenant.partnerId, subscriberId);
      if (other) throw attachedElsewhere(subscriberId, other.id);
      if (clock.subscriberIds.length >= SUBSCRIBERS_PER_CLOCK) {
        throw new DomainError('limit_reached', `Test clock ${id} already has ${SUBSCRIBERS_PER_CLOCK} subscribers: use another clock.`);
      }
      const held = await this.subscriberData.heldBy(tenant, subscriberId);
      if (held.length > 0) {
        throw new DomainError(
          'subscriber_has_data',
          `Subscriber "${subscriberId}" already has sandbox data (${held.join(', ')}): attach a subscriber id that has none, before its first entitlement.`,
        );
      }
      if (!(await this.clocks.attach(tenant.partnerId, id, subscriberId))) throw attachedElsewhere(subscriberId);
      return { ...clock, subscriberIds: [...clock.subscriberIds, subscriberId] };
    });
  }

  /**
   * Moves the clock to `frozenTime`, after writing every `chapter.unlocked` its subscribers'
   * readings cross, in instant order, by the live job's own code. One transaction: the
   * events and the new time commit together or not at all, so a retried advance emits
   * nothing twice; the same instant again answers the clock unchanged. The partner's
   * budgets of advances and of events are spent in the same transaction: a refusal (429)
   * rolls back the events too.
   */
  advance(tenant: Tenant, id: string, frozenTime: Date): Promise<TestClock> {
    sandboxOnly(tenant);
    return this.unitOfWork.run(async () => {
      const clock = (await this.clocks.lock(tenant.partnerId, id)) ?? notFound(id);
      const decision = advanceDecision(clock.frozenTime, frozenTime, new Date());
      if (decision.kind === 'refused') throw invalidRequest(decision.reason);
      if (decision.kind === 'unchanged') return clock;
      await this.rateLimiter.spendOrThrow(
        `test-clock-advances:${tenant.partnerId}`,
        1,
        ADVANCES,
        `At most ${ADVANCES_PER_HOUR} test clock advances an hour per partner (${ADVANCE_BURST} at once): retry after the time in Retry-After.`,
      );
      const run = await this.unlocks.runOnClock(id, frozenTime);
      if (run.announced > EVENTS_PER_HOUR) {
        throw invalidRequest(
          `This advance would write ${run.announced} chapter.unlocked events, more than the ${EVENTS_PER_HOUR} one advance may: advance to an earlier frozen_time first.`,
        );
      }
      await this.rateLimiter.spendOrThrow(
        `test-clock-events:${tenant.partnerId}`,
        run.announced,
        EVENTS,
        `This advance would write ${run.announced} chapter.unlocked events, beyond the ${EVENTS_PER_HOUR} an hour a partner's test clocks may write: retry after the time in Retry-After, or advance less far.`,
      );
      await this.clocks.setFrozenTime(id, frozenTime);
      return { ...clock, frozenTime };
    });
  }

  /**
   * Deletes the clock and all of its subscribers' sandbox data with it, in one transaction.
   * With subscribers attached, the token's `scopes` must include every ERASING_SCOPES one.
   */
  async delete(tenant: Tenant, id: string, scopes: ReadonlySet<string>): Promise<void> {
    sandboxOnly(tenant);
    await this.unitOfWork.run(async () => {
      const clock = (await this.clocks.lock(tenant.partnerId, id)) ?? notFound(id);
      const missing = ERASING_SCOPES.filter((scope) => !scopes.has(scope));
      if (clock.subscriberIds.length > 0 && missing.length > 0) {
        throw new DomainError(
          'insufficient_scope',
          `Deleting test clock ${id} erases its subscribers' sandbox data: the token needs ${ERASING_SCOPES.join(', ')} (missing ${missing.join(', ')}).`,
        );
      }
      for (const subscriberId of clock.subscriberIds) await this.subscriberData.clear(tenant, subscriberId);
      await this.clocks.delete(id);
    });
  }
}

function sandboxOnly(tenant: Tenant): void {
  if (tenant.environment !== 'sandbox') {
    throw new DomainError('sandbox_only', 'Test clocks exist in the sandbox only: call with a token of a sandbox credential (sbx_…).');
  }
}

const attachedElsewhere = (subscriberId: string, clockId?: string) =>
  new DomainError(
    'subscriber_has_data',
    `Subscriber "${subscriberId}" is already attached to ${clockId ? `test clock ${clockId}` : 'another test clock'}: a subscriber belongs to one clock.`,
  );

function notFound(id: string): never {
  throw new DomainError('not_found', `No test clock ${id}.`);
}
