import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { AppModule } from './app.module.js';
import { ConfigError, loadConfig } from './config/app-config.js';
import { loadEnvFile } from './config/env-file.js';
import { checkDatabaseReachable, describeDatabase, locateDatabase } from './database/database-location.js';
import { HttpMetrics } from './observability/metrics.js';
import { asksForHelp, cliScript, COMMANDS, commandUsage, operatorIdentity, UsageError, parseArguments, unknownCommand, usage } from './cli/commands.js';
import { OperatorAuditService } from './modules/operator-audit/index.js';

/**
 * `npm run cli -- <command> [options]` (DECISIONS 18): operations commands on the same
 * configuration and database as the service. Each prints one JSON document on stdout;
 * progress and errors go to stderr.
 */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const script = cliScript(process.env);
  if (name === undefined || name === 'help' || asksForHelp([name])) {
    process.stdout.write(usage(script));
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${unknownCommand(name, script)}\n`);
    return 2;
  }
  if (asksForHelp(rest)) {
    process.stdout.write(commandUsage(name, script));
    return 0;
  }
  let context: INestApplicationContext | undefined;
  let release: () => Promise<void> = async () => undefined;
  try {
    // Everything that needs no database first: a mistake costs no connection.
    const input = await command.check(parseArguments(rest, command.options));
    loadEnvFile();
    const config = loadConfig();
    // Which database answers matters: a credential made in another DATA_DIR is unknown here.
    process.stderr.write(`Database: ${describeDatabase(config)}\n`);
    const database = await locateDatabase(config, (line) => process.stderr.write(`${line}\n`));
    release = database.release;
    await checkDatabaseReachable(database.url);
    context = await NestFactory.createApplicationContext(AppModule.forRoot({ config, databaseUrl: database.url, metrics: new HttpMetrics() }), {
      logger: ['error'],
    });
    const result = await command.run(context, input);
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    // Once it succeeded: a refused or failed command changed nothing to record.
    if (command.audit) await context.get(OperatorAuditService).record(name, operatorIdentity(), command.audit(input, result));
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`${name} failed: ${(error as Error).message ?? error}\n`);
    return 1;
  } finally {
    await context?.close();
    await release();
  }
}

// Exit explicitly, with the command's status.
process.exit(await main(process.argv.slice(2)));
