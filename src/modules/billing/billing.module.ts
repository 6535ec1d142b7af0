import { Module } from '@nestjs/common';
import { EntitlementsModule } from '../entitlements/index.js';
import { BillingService } from './application/billing.service.js';
import { BillingController } from './http/billing.controller.js';

@Module({
  imports: [EntitlementsModule],
  controllers: [BillingController],
  providers: [BillingService],
})
export class BillingModule {}
