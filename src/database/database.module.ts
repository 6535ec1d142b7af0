import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { runMigrationsAtStart } from './migrate.js';
import { PartitionMaintenanceJob } from './partition-maintenance.job.js';
import { SignedCountFoldingJob } from './signed-count-folding.job.js';

/**
 * The PostgreSQL connection pool; pending migrations are applied before anything else starts.
 * The monthly partitions of the tables that grow with history, and the folding of the
 * signed-count tables, are kept here too.
 */
@Module({})
export class DatabaseModule {
  static forRoot(url: string, poolSize?: number): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => dataSourceOptions(url, poolSize),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            await runMigrationsAtStart(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [PartitionMaintenanceJob, SignedCountFoldingJob],
      exports: [PartitionMaintenanceJob],
    };
  }
}
