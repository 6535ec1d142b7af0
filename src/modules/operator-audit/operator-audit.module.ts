import { Module } from '@nestjs/common';
import { OperatorAuditService } from './application/operator-audit.service.js';
import { OperatorActionRepository } from './domain/operator-action.repository.js';
import { PgOperatorActionRepository } from './infrastructure/pg-operator-action.repository.js';

/** The append-only record of operator actions, written and read by the operations CLI (ADR 0155). */
@Module({
  providers: [{ provide: OperatorActionRepository, useClass: PgOperatorActionRepository }, OperatorAuditService],
  exports: [OperatorAuditService],
})
export class OperatorAuditModule {}
