import { Injectable } from '@nestjs/common';
import { OperatorActionRepository, type ActionRecord, type OperatorAction, type OperatorIdentity } from '../domain/operator-action.repository.js';

/**
 * The record of what operators changed through the CLI (ADR 0155): each state-changing
 * command appends one row once it succeeded; `audit:list` reads them. Nothing here can
 * change or remove a row, and the database refuses it too.
 */
@Injectable()
export class OperatorAuditService {
  constructor(private readonly actions: OperatorActionRepository) {}

  record(command: string, who: OperatorIdentity, action: ActionRecord): Promise<void> {
    return this.actions.append(command, who, action);
  }

  list(filter: { since?: Date; limit: number }): Promise<OperatorAction[]> {
    return this.actions.list(filter);
  }
}
