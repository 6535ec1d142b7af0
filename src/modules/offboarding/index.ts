export { OffboardingModule } from './offboarding.module.js';
export { PartnerErasureService, PartnerNameMismatch, type PartnerErasure } from './application/partner-erasure.service.js';
