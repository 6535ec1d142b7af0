export { OperatorAuditModule } from './operator-audit.module.js';
export { OperatorAuditService } from './application/operator-audit.service.js';
export type { ActionRecord, OperatorAction, OperatorIdentity } from './domain/operator-action.repository.js';
