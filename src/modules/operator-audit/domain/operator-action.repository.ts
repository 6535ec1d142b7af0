/** Who ran an operations command: the OS account, and the person it names when several share one. */
export interface OperatorIdentity {
  osUser: string;
  /** From OPERATOR, when set: the account alone may be shared (root, a deploy user). */
  operator: string | null;
}

/** What one command changed: its subject (the id it acted on) and details, never a secret. */
export interface ActionRecord {
  subject?: string;
  details?: Record<string, unknown>;
}

export interface OperatorAction extends OperatorIdentity, ActionRecord {
  id: string;
  at: Date;
  command: string;
}

/** The append-only record of operator actions (ADR 0155): rows are added, never changed. */
export abstract class OperatorActionRepository {
  abstract append(command: string, who: OperatorIdentity, action: ActionRecord): Promise<void>;
  /** Newest first, from `since` on. */
  abstract list(filter: { since?: Date; limit: number }): Promise<OperatorAction[]>;
}
