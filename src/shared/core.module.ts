import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { ServerSecrets } from './crypto/server-secrets.js';
import { Db } from './persistence/db.js';
import { PgNotifications } from './persistence/pg-notifications.js';
import { ReportingDb } from './persistence/reporting-db.js';
import { SignedCountFolding } from './persistence/signed-counts.js';
import { ReadinessChecks } from './readiness-checks.js';
import { ShutdownSignal } from './shutdown-signal.js';
import { SubscriberDataRegistry } from './tenancy/subscriber-data.js';
import { TypeOrmUnitOfWork } from './persistence/typeorm-unit-of-work.js';
import { UnitOfWork } from './persistence/unit-of-work.js';

/** What every module may inject: configuration, derived secrets, the unit of work, database notifications, the reports' reads, readiness checks, the registry of subscribers' data and the folding of signed counts. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        ServerSecrets,
        Db,
        PgNotifications,
        ReportingDb,
        ShutdownSignal,
        ReadinessChecks,
        SubscriberDataRegistry,
        SignedCountFolding,
        TypeOrmUnitOfWork,
        { provide: UnitOfWork, useExisting: TypeOrmUnitOfWork },
      ],
      exports: [
        AppConfig,
        ServerSecrets,
        Db,
        PgNotifications,
        ReportingDb,
        ShutdownSignal,
        ReadinessChecks,
        SubscriberDataRegistry,
        SignedCountFolding,
        TypeOrmUnitOfWork,
        UnitOfWork,
      ],
    };
  }
}
