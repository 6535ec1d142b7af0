import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/index.js';
import { PartnerErasureService } from './application/partner-erasure.service.js';
import { PartnerRowsRepository } from './domain/partner-rows.repository.js';
import { PgPartnerRowsRepository } from './infrastructure/pg-partner-rows.repository.js';

/** Removing a partner whose contract ended (`partner:erase`, DECISIONS 29). */
@Module({
  imports: [IdentityModule],
  providers: [{ provide: PartnerRowsRepository, useClass: PgPartnerRowsRepository }, PartnerErasureService],
  exports: [PartnerErasureService],
})
export class OffboardingModule {}
