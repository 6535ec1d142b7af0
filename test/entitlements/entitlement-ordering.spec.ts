import fc from 'fast-check';
import type { EntitlementState } from '../../src/modules/entitlements/domain/entitlement.repository.js';
import { effectiveAtRefusal, writeOutcome } from '../../src/modules/entitlements/domain/entitlement-ordering.js';

const state = (status: EntitlementState['status']): EntitlementState => ({ status, partnerPlan: null, internalPlan: 'text_standard' });
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('writeOutcome', () => {
  it('refuses a change older than the record, and applies an equal or newer one', () => {
    const current = { ...state('active'), effectiveAt: at(1000) };
    expect(writeOutcome(current, state('canceled'), at(999))).toBe('stale');
    expect(writeOutcome(current, state('canceled'), at(1000))).toBe('changed');
    expect(writeOutcome(current, state('active'), at(2000))).toBe('unchanged');
  });

  it('keeps the state of the latest write whatever order the writes arrive in', () => {
    const write = fc.record({ status: fc.constantFrom('active', 'suspended', 'canceled' as const), at: fc.integer({ min: 0, max: 10_000_000 }) });
    fc.assert(
      fc.property(fc.uniqueArray(write, { minLength: 1, maxLength: 12, selector: (w) => w.at }), (writes) => {
        // The service's algorithm over a record: the first write creates it, each later one is judged.
        let record = { ...state(writes[0].status), effectiveAt: at(writes[0].at) };
        for (const w of writes.slice(1)) {
          const outcome = writeOutcome(record, state(w.status), at(w.at));
          if (outcome !== 'stale') record = { ...state(w.status), effectiveAt: at(w.at) };
        }
        const latest = writes.reduce((a, b) => (b.at > a.at ? b : a));
        expect(record.status).toBe(latest.status);
        expect(record.effectiveAt.getTime()).toBe(at(latest.at).getTime());
      }),
      { numRuns: 500 },
    );
  });
});

describe('effectiveAtRefusal', () => {
  it('accepts the past and up to 5 minutes ahead, no further', () => {
    const now = at(0);
    expect(effectiveAtRefusal(at(-3_600_000), now, 'live')).toBeUndefined();
    expect(effectiveAtRefusal(at(300_000), now, 'live')).toBeUndefined();
    expect(effectiveAtRefusal(at(300_001), now, 'sandbox')).toMatch(/5 minutes ahead/);
  });

  it('accepts at most 72 hours back in live, any past instant in the sandbox', () => {
    const now = at(0);
    expect(effectiveAtRefusal(at(-72 * 3_600_000), now, 'live')).toBeUndefined();
    expect(effectiveAtRefusal(at(-72 * 3_600_000 - 1), now, 'live')).toMatch(/72 hours/);
    expect(effectiveAtRefusal(at(-10 * 365 * 86_400_000), now, 'sandbox')).toBeUndefined();
  });
});
