export const ENVIRONMENTS = ['live', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * Whose data a request may touch. Every subscriber-scoped row is keyed by it
 * (DECISIONS 2): a partner's subscriber ids are its own, and live never meets sandbox.
 */
export interface Tenant {
  readonly partnerId: string;
  readonly environment: Environment;
}
