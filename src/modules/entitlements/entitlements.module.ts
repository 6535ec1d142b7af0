import { Module } from '@nestjs/common';
import { EntitlementsService } from './application/entitlements.service.js';
import { EntitlementRepository } from './domain/entitlement.repository.js';
import { EntitlementsController } from './http/entitlements.controller.js';
import { TypeOrmEntitlementRepository } from './infrastructure/typeorm-entitlement.repository.js';
import { ENTITLEMENT_DAY_PEAKS } from './infrastructure/entitlement-day-peaks.js';
import { ENTITLEMENT_ACTIVATION_COUNTS, ENTITLEMENT_COUNTS } from './infrastructure/entitlement.entities.js';
import { EntitlementSubscriberData } from './infrastructure/entitlement.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

@Module({
  controllers: [EntitlementsController],
  providers: [
    ...subscriberData(EntitlementSubscriberData),
    ENTITLEMENT_COUNTS,
    ENTITLEMENT_ACTIVATION_COUNTS,
    ENTITLEMENT_DAY_PEAKS,
    { provide: EntitlementRepository, useClass: TypeOrmEntitlementRepository },
    EntitlementsService,
  ],
  exports: [EntitlementsService],
})
export class EntitlementsModule {}
