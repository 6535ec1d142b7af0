import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { KidsMonthFigures } from './kids-engagement-summary.js';

/** The children's months whose figures are fixed (ADR 0135). Reads and writes the primary. */
export abstract class KidsMonthFiguresRepository {
  /** The fixed figures of those of `months` (YYYY-MM-01) that have them, oldest first. */
  abstract fixed(tenant: Tenant, months: readonly string[]): Promise<KidsMonthFigures[]>;
  /** Fixes a month's figures unless another answer fixed them first (then these are dropped). */
  abstract fixUnlessFixed(tenant: Tenant, figures: Omit<KidsMonthFigures, 'fixedAt'>): Promise<void>;
  /** Replaces a fixed month's figures (a restatement). */
  abstract replace(tenant: Tenant, figures: Omit<KidsMonthFigures, 'fixedAt'>): Promise<void>;
  /**
   * Until the transaction ends: with `exclusive`, the import's hold, which waits for every
   * fixing under way and keeps new ones waiting; without, a fixing's, which many take at
   * once. So no month is fixed from sessions an import is still writing.
   */
  abstract holdAgainstImports(tenant: Tenant, mode: 'fixing' | 'importing'): Promise<void>;
}
