import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Tenant } from './tenant.js';

/** What an erasure counts, per kind of data (DECISIONS 29). */
export const ERASED_KINDS = ['entitlements', 'reading', 'listening', 'endings', 'stream_urls', 'events', 'kids_sessions'] as const;
export type ErasedKind = (typeof ERASED_KINDS)[number];
export type ErasedCounts = Record<ErasedKind, number>;

/**
 * The sections of a subscriber's export, each built by the module that owns the rows, as the
 * JSON the document carries (snake_case). `chapters_read` is joined into `novels` by the
 * export service: reading owns the novels opened, analytics the chapters read.
 */
export const EXPORT_SECTIONS = [
  'entitlements',
  'novels',
  'chapters_read',
  'playback_positions',
  'stream_urls',
  'events',
  'kids_sessions',
  'test_clock',
] as const;
export type ExportSection = (typeof EXPORT_SECTIONS)[number];
export type ExportedSections = Partial<Record<ExportSection, unknown>>;

/**
 * A stand-in for an erased subscriber id, where an aggregate of past periods counts distinct
 * subscribers from rows that must stay: random, so nothing links it to the id, and starting
 * with `~`, which no subscriber id may hold (`SUBSCRIBER_ID_PATTERN`), so no request can
 * ever name it.
 */
export const standInId = (): string => `~${randomUUID()}`;

/** One module's rows about a subscriber: whether there are any, their export, their erasure. */
export interface SubscriberDataHolder {
  /** What the rows are, for a refusal that names them ("entitlements"). */
  readonly name: string;
  /**
   * The columns (`table.column`) holding subscriber ids that this holder exports and
   * erases: what the completeness test compares with the schema.
   */
  readonly columns: readonly string[];
  /** Whether there are any, for a test clock's attach (absent: never refuses one). */
  holdsAny?(tenant: Tenant, subscriberId: string): Promise<boolean>;
  /** Deletes them, aggregates and all, in the caller's transaction: a test clock's clean slate (absent: nothing to delete). */
  clear?(tenant: Tenant, subscriberId: string): Promise<void>;
  /** Its sections of the export document. */
  export(tenant: Tenant, subscriberId: string): Promise<ExportedSections>;
  /**
   * Erases them in the caller's transaction (DECISIONS 29): afterwards no row holds the id,
   * and aggregates of past periods answer as before (rows they count from keep `standIn`).
   */
  erase(tenant: Tenant, subscriberId: string, standIn: string): Promise<Partial<ErasedCounts>>;
}

/** A column that holds subscriber ids but is not exported, and why. */
export interface ExemptColumn {
  readonly column: string;
  readonly reason: string;
}

/** What an erasure removed, per kind. */
export const noneErased = (): ErasedCounts => Object.fromEntries(ERASED_KINDS.map((kind) => [kind, 0])) as ErasedCounts;

/**
 * Every module that keeps rows about a subscriber registers them here at start, so that a
 * clean slate (a test clock deleted, DECISIONS 28), an export and an erasure (DECISIONS 29)
 * reach all of them without their callers knowing the modules. Call `clear` and `erase`
 * inside a unit of work: all of it or none.
 */
@Injectable()
export class SubscriberDataRegistry {
  private readonly holders: SubscriberDataHolder[] = [];
  private readonly exemptions: ExemptColumn[] = [];

  register(holder: SubscriberDataHolder): void {
    this.holders.push(holder);
  }

  exempt(column: string, reason: string): void {
    this.exemptions.push({ column, reason });
  }

  /** The columns the holders cover and those declared exempt, for the completeness test. */
  ledger(): { covered: string[]; exempt: ExemptColumn[] } {
    return { covered: this.holders.flatMap((holder) => holder.columns), exempt: [...this.exemptions] };
  }

  /** The names of the kinds of data the subscriber has, in registration order. */
  async heldBy(tenant: Tenant, subscriberId: string): Promise<string[]> {
    const held: string[] = [];
    // One after another: inside a transaction they share its connection.
    for (const holder of this.holders) if (await holder.holdsAny?.(tenant, subscriberId)) held.push(holder.name);
    return held;
  }

  /**
   * Requests that write the subscriber's rows without holding its test clock (a playback
   * save, a chapter read) may lock them in another order: a deadlock then fails one side
   * with PostgreSQL's 40P01, which answers 503 with Retry-After (the contract's retry).
   */
  async clear(tenant: Tenant, subscriberId: string): Promise<void> {
    for (const holder of this.holders) await holder.clear?.(tenant, subscriberId);
  }

  /** Every holder's sections, merged. */
  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const sections: ExportedSections = {};
    for (const holder of this.holders) Object.assign(sections, await holder.export(tenant, subscriberId));
    return sections;
  }

  /**
   * Every holder's erasure with one stand-in, summed per kind. In registration order, which
   * follows the modules' imports: entitlements (whose history the children's marks read)
   * before the kids' sessions, so their marks are recomputed against the stand-in's history.
   */
  async erase(tenant: Tenant, subscriberId: string): Promise<ErasedCounts> {
    const counts = noneErased();
    const standIn = standInId();
    for (const holder of this.holders) {
      const erased = await holder.erase(tenant, subscriberId, standIn);
      for (const kind of ERASED_KINDS) counts[kind] += erased[kind] ?? 0;
    }
    return counts;
  }
}
