import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from './config/app-config.js';
import { DatabaseModule } from './database/database.module.js';
import { AnalyticsModule } from './modules/analytics/index.js';
import { AudioModule } from './modules/audio/index.js';
import { BillingModule } from './modules/billing/index.js';
import { CatalogModule } from './modules/catalog/index.js';
import { EndingsModule } from './modules/endings/index.js';
import { EntitlementsModule } from './modules/entitlements/index.js';
import { IdempotencyModule } from './modules/idempotency/index.js';
import { IdentityModule } from './modules/identity/index.js';
import { KidsEngagementModule } from './modules/kids-engagement/index.js';
import { MediaModule } from './modules/media/index.js';
import { OffboardingModule } from './modules/offboarding/index.js';
import { OperatorAuditModule } from './modules/operator-audit/index.js';
import { PlaybackModule } from './modules/playback/index.js';
import { PrivacyModule } from './modules/privacy/index.js';
import { ReadingModule } from './modules/reading/index.js';
import { ServerSecretModule } from './modules/server-secret/index.js';
import { TestClocksModule } from './modules/test-clocks/index.js';
import { WebhooksModule } from './modules/webhooks/index.js';
import type { HttpMetrics } from './observability/metrics.js';
import { ObservabilityModule } from './observability/observability.module.js';
import { CoreModule } from './shared/core.module.js';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  metrics: HttpMetrics;
  /** Mounted after the service's modules: the bench's probes only (createApp). */
  extraModules?: readonly Type[];
}

@Module({})
export class AppModule {
  static forRoot({ config, databaseUrl, metrics, extraModules = [] }: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        // Periodic jobs (idle rate-limit buckets, event retention, chapter.unlocked); each must be safe to run on every replica at once.
        ScheduleModule.forRoot(),
        DatabaseModule.forRoot(databaseUrl, config.databasePoolSize),
        ObservabilityModule.forRoot(metrics),
        IdentityModule,
        IdempotencyModule,
        ServerSecretModule,
        EntitlementsModule,
        BillingModule,
        CatalogModule,
        ReadingModule,
        EndingsModule,
        PlaybackModule,
        AnalyticsModule,
        KidsEngagementModule,
        WebhooksModule,
        MediaModule,
        AudioModule,
        TestClocksModule,
        PrivacyModule,
        OffboardingModule,
        OperatorAuditModule,
        ...extraModules,
      ],
    };
  }
}
