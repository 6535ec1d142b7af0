import { type DynamicModule, Module } from '@nestjs/common';
import { WebhooksModule } from '../modules/webhooks/index.js';
import { BusinessMetrics } from './business-metrics.js';
import { HealthController } from './health.controller.js';
import { HttpMetrics } from './metrics.js';

@Module({})
export class ObservabilityModule {
  static forRoot(metrics: HttpMetrics): DynamicModule {
    return {
      module: ObservabilityModule,
      imports: [WebhooksModule],
      controllers: [HealthController],
      providers: [{ provide: HttpMetrics, useValue: metrics }, BusinessMetrics],
    };
  }
}
