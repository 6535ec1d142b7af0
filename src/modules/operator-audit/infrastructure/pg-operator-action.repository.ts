import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { OperatorActionRepository, type ActionRecord, type OperatorAction, type OperatorIdentity } from '../domain/operator-action.repository.js';

@Injectable()
export class PgOperatorActionRepository extends OperatorActionRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async append(command: string, who: OperatorIdentity, action: ActionRecord): Promise<void> {
    await this.db.query(`INSERT INTO operator_actions (command, os_user, operator, subject, details) VALUES ($1, $2, $3, $4, $5)`, [
      command,
      who.osUser,
      who.operator,
      action.subject ?? null,
      JSON.stringify(action.details ?? {}),
    ]);
  }

  async list({ since, limit }: { since?: Date; limit: number }): Promise<OperatorAction[]> {
    return this.db.query<OperatorAction>(
      `SELECT id::text, at, command, os_user AS "osUser", operator, subject, details
         FROM operator_actions WHERE $1::timestamptz IS NULL OR at >= $1
        ORDER BY id DESC LIMIT $2`,
      [since ?? null, limit],
    );
  }
}
