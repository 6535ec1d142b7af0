import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { runMigrations } from './migrate.js';

/** The PostgreSQL connection pool; pending migrations are applied before anything else starts. */
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
            await runMigrations(dataSource);
            return dataSource;
          },
        }),
      ],
    };
  }
}
