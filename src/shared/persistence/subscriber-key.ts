/**
 * A subscriber's key as a statement's values or slots (sql.ts): what fragments of several
 * modules share when one statement reads or writes a subscriber's rows in their tables.
 */
export interface SubscriberKeySql {
  partner: unknown;
  environment: unknown;
  subscriber: unknown;
}
