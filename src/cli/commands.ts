import type { INestApplicationContext } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { DataSource } from 'typeorm';
import { migrationsAppliedBy } from '../database/migrate.js';
import { CatalogImportService, ManifestError } from '../modules/catalog/index.js';
import { EntitlementsService, INTERNAL_PLANS, isInternalPlan } from '../modules/entitlements/index.js';
import {
  parseScopes,
  PartnerCredentialsService,
  SCOPES,
  SigningKeyService,
  TOKEN_ISSUERS,
  UnknownPartnerError,
  type Scope,
  type TokenIssuer,
} from '../modules/identity/index.js';
import { KidsActivityImporter, KidsImportRejected } from '../modules/kids-engagement/index.js';
import { SecretRotationService } from '../modules/server-secret/index.js';
import { nearest } from './nearest.js';

/** A mistake in how a command was called; reported with exit code 2. */
export class UsageError extends Error {}

export type Args = { positional: string[]; flags: Record<string, string | true> };

/**
 * A command: `check` reads and validates its arguments without touching anything, before
 * the process connects to a database (a mistake costs no connection and reads as one
 * line); `run` does the work with what `check` returned.
 */
export interface Command<Input = unknown> {
  summary: string;
  /** Flags the command accepts: true for a switch, false for a flag with a value. */
  options: Record<string, boolean>;
  check(args: Args): Input | Promise<Input>;
  run(context: INestApplicationContext, input: Input): Promise<unknown>;
}

/** Ties a command's check and run to one input type. */
const command = <Input>(definition: Command<Input>): Command => definition as Command;

export const COMMANDS: Record<string, Command> = {
  'partner:create': command({
    summary: '--name NAME [--scopes "s1 s2"] [--sandbox]   create a partner and its first credential',
    options: { name: false, scopes: false, sandbox: true },
    check: (args) => ({ name: required(args, 'name'), scopes: scopesOf(args), environment: environmentOf(args) }),
    run: (context, { name, scopes, environment }) => context.get(PartnerCredentialsService).createPartner(name, scopes, environment),
  }),
  'credential:create': command({
    summary: '--partner ID [--scopes "s1 s2"] [--sandbox]   add a credential to a partner',
    options: { partner: false, scopes: false, sandbox: true },
    check: (args) => ({ partnerId: uuid(args, 'partner'), scopes: scopesOf(args), environment: environmentOf(args) }),
    run: async (context, { partnerId, scopes, environment }) => {
      try {
        return await context.get(PartnerCredentialsService).createCredential(partnerId, scopes, environment);
      } catch (error) {
        if (error instanceof UnknownPartnerError) throw new UsageError(`no partner ${partnerId}`);
        throw error;
      }
    },
  }),
  'credential:revoke': command({
    summary: '--client-id ID   revoke a credential: its tokens stop working',
    options: { 'client-id': false },
    check: (args) => required(args, 'client-id'),
    run: async (context, clientId) => {
      if (!(await context.get(PartnerCredentialsService).revoke(clientId))) throw new UsageError(`no credential ${clientId}`);
      return { client_id: clientId, revoked: true };
    },
  }),
  'plan:map': command({
    summary: `--partner ID --plan NAME --to INTERNAL_PLAN   map a partner plan (${Object.keys(INTERNAL_PLANS).join(', ')})`,
    options: { partner: false, plan: false, to: false },
    check: (args) => {
      const to = required(args, 'to');
      if (!isInternalPlan(to)) throw new UsageError(`--to must be one of ${Object.keys(INTERNAL_PLANS).join(', ')}`);
      return { partnerId: uuid(args, 'partner'), plan: required(args, 'plan'), to };
    },
    run: async (context, { partnerId, plan, to }) => {
      if (!(await context.get(PartnerCredentialsService).partnerExists(partnerId))) throw new UsageError(`no partner ${partnerId}`);
      const updated = await context.get(EntitlementsService).mapPlan(partnerId, plan, to);
      return { partner_id: partnerId, plan, internal_plan: to, entitlements_updated: updated };
    },
  }),
  'catalog:import': command({
    summary: 'FILE [--sandbox]   upsert the catalog from a manifest, all or nothing (progress on stderr)',
    options: { sandbox: true },
    check: async (args) => ({ file: await readableFile(args, 'manifest FILE'), environment: environmentOf(args) }),
    run: async (context, { file, environment }) => {
      try {
        const result = await context.get(CatalogImportService).importFile(file, environment, (line) => process.stderr.write(`${line}\n`));
        const { novelsChanged, ...counts } = result;
        return { ...counts, novels_changed: novelsChanged };
      } catch (error) {
        if (error instanceof ManifestError) throw new UsageError(`invalid manifest, nothing imported: ${error.message}`);
        throw error;
      }
    },
  }),
  'kids:import': command({
    summary: "FILE --partner ID   load children's reading sessions (NDJSON) into the partner's live data, all or nothing",
    options: { partner: false },
    check: async (args) => ({ partnerId: uuid(args, 'partner'), file: await readableFile(args, 'NDJSON FILE') }),
    run: async (context, { partnerId, file }) => {
      try {
        const result = await context.get(KidsActivityImporter).import(partnerId, linesOf(file));
        return { partner_id: partnerId, environment: 'live', file, ...result };
      } catch (error) {
        if (error instanceof UnknownPartnerError) throw new UsageError(`no partner ${partnerId}`);
        if (error instanceof KidsImportRejected) throw new UsageError(error.message);
        throw error;
      }
    },
  }),
  'keys:rotate': command({
    summary: '[--issuer platform|kids]   publish a new signing key (it signs after the activation delay)',
    options: { issuer: false },
    check: (args) => {
      const issuer = (args.flags.issuer ?? 'platform') as TokenIssuer;
      if (!TOKEN_ISSUERS.includes(issuer)) throw new UsageError(`--issuer must be one of ${TOKEN_ISSUERS.join(', ')}`);
      return issuer;
    },
    run: async (context, issuer) => ({ issuer, ...(await context.get(SigningKeyService).rotate(issuer)) }),
  }),
  'secret:rotate': command({
    summary: '   with SERVER_SECRET (new) and SERVER_SECRET_PREVIOUS (old) on every replica: move the database to the new secret',
    options: {},
    check: () => undefined,
    run: (context) => context.get(SecretRotationService).rotate(),
  }),
  'db:migrate': command({
    summary: '   apply pending database migrations',
    options: {},
    check: () => undefined,
    // Starting the context migrates: what it applied is reported with anything pending since.
    run: async (context) => {
      const dataSource = context.get(DataSource);
      const pending = await migrationsAppliedBy(dataSource);
      const applied = await dataSource.query<{ name: string }[]>('SELECT name FROM schema_migrations ORDER BY id');
      return { applied_now: pending, schema: applied.map((m) => m.name) };
    },
  }),
};

/**
 * The npm script the operator ran, so that help names the one that works where it runs:
 * `cli:prod` on a production install (which has no build toolchain for `cli`).
 */
export function cliScript(env: Record<string, string | undefined>): 'cli' | 'cli:prod' {
  if (env.npm_lifecycle_event === 'cli' || env.npm_lifecycle_event === 'cli:prod') return env.npm_lifecycle_event;
  return env.NODE_ENV === 'production' ? 'cli:prod' : 'cli';
}

export function usage(script: string): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name} ${command.summary}`);
  return `Usage: npm run ${script} -- <command> [options]\n       npm run ${script} -- <command> --help\n\nCommands:\n${lines.join('\n')}\n`;
}

export function commandUsage(name: string, script: string): string {
  return `Usage: npm run ${script} -- ${name} ${COMMANDS[name].summary}\n`;
}

/** Names the unknown command and, when one is close, the command probably meant. */
export function unknownCommand(name: string, script: string): string {
  const guess = nearest(name, Object.keys(COMMANDS));
  const hint = guess ? `did you mean ${guess}?` : `the commands are ${Object.keys(COMMANDS).join(', ')}`;
  return `unknown command ${name}: ${hint} (npm run ${script} -- --help)`;
}

function unknownOption(name: string, options: Record<string, boolean>): UsageError {
  const known = Object.keys(options);
  const guess = nearest(name, known);
  const hint = guess ? `did you mean --${guess}?` : known.length ? `options are ${known.map((o) => `--${o}`).join(', ')}` : 'it takes no options';
  return new UsageError(`unknown option --${name}: ${hint}`);
}

export const asksForHelp = (argv: string[]) => argv.some((token) => token === '--help' || token === '-h');

export function parseArguments(argv: string[], options: Record<string, boolean>): Args {
  const args: Args = { positional: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (!token.startsWith('--')) {
      args.positional.push(token);
      continue;
    }
    const [name, inline] = token.slice(2).split(/=(.*)/s, 2);
    if (!(name in options)) throw unknownOption(name, options);
    if (options[name]) {
      args.flags[name] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    args.flags[name] = value;
  }
  return args;
}

function required(args: Args, name: string): string {
  const value = args.flags[name];
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} is required`);
  return value.trim();
}

/**
 * The lines of a file, read as they are consumed. Opened lazily on purpose: readline emits
 * lines as soon as it is created, and those emitted before iteration begins are lost.
 */
async function* linesOf(file: string): AsyncGenerator<string> {
  yield* createInterface({ input: createReadStream(file), crlfDelay: Infinity });
}

/** The one positional FILE, which must be readable now. */
async function readableFile(args: Args, what: string): Promise<string> {
  const [file, ...extra] = args.positional;
  if (!file || extra.length) throw new UsageError(`give exactly one ${what}`);
  await access(file).catch(() => {
    throw new UsageError(`cannot read ${file}`);
  });
  return file;
}

function uuid(args: Args, name: string): string {
  const value = required(args, name);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new UsageError(`--${name} must be a partner id (UUID)`);
  return value;
}

function scopesOf(args: Args): Scope[] {
  if (args.flags.scopes === undefined) return [...SCOPES];
  const { scopes, unknown } = parseScopes(String(args.flags.scopes));
  if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(' ')})`);
  if (!scopes.length) throw new UsageError('--scopes lists no scope');
  return scopes;
}

const environmentOf = (args: Args) => (args.flags.sandbox ? 'sandbox' : 'live') as 'live' | 'sandbox';
