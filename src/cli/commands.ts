import type { INestApplicationContext } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { migrationsAppliedBy } from '../database/migrate.js';
import { CatalogImportService, ManifestError } from '../modules/catalog/index.js';
import { EntitlementsService, INTERNAL_PLANS, isInternalPlan } from '../modules/entitlements/index.js';
import {
  DEFAULT_SCOPES,
  parseScopes,
  PartnerCredentialsService,
  SCOPES,
  SigningKeyService,
  TOKEN_ISSUERS,
  UnknownPartnerError,
  type Scope,
  type TokenIssuer,
} from '../modules/identity/index.js';
import { KidsActivityImporter, KidsImportIntoFixedMonths, KidsImportRejected } from '../modules/kids-engagement/index.js';
import { PartnerErasureService, PartnerNameMismatch } from '../modules/offboarding/index.js';
import { erasureDocument, SubscriberDataService } from '../modules/privacy/index.js';
import { OperatorAuditService, type ActionRecord, type OperatorIdentity } from '../modules/operator-audit/index.js';
import { SecretRotationService, SecretStatusService } from '../modules/server-secret/index.js';
import { SubscriberLogIds } from '../shared/crypto/subscriber-log-ids.js';
import { SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE } from '../shared/identifiers.js';
import { nearest } from './nearest.js';

/** A mistake in how a command was called; reported with exit code 2. */
export class UsageError extends Error {}

export type Args = { positional: string[]; flags: Record<string, string | true> };

/**
 * A command: `check` reads and validates its arguments without touching anything, before
 * the process connects to a database (a mistake costs no connection and reads as one
 * line); `run` does the work with what `check` returned. A command that changes state
 * names what it changed in `audit` (never a secret), and the CLI appends that to the
 * operator actions record once `run` succeeded (ADR 0155).
 */
export interface Command<Input = unknown, Result = unknown> {
  summary: string;
  /** Flags the command accepts: true for a switch, false for a flag with a value. */
  options: Record<string, boolean>;
  check(args: Args): Input | Promise<Input>;
  run(context: INestApplicationContext, input: Input): Promise<Result>;
  audit?(input: Input, result: Result): ActionRecord;
}

const AUDIT_LIST_DEFAULT = 100;
const AUDIT_LIST_MAX = 1000;

/** Ties a command's check, run and audit to one input and one result type. */
const command = <Input, Result>(definition: Command<Input, Result>): Command => definition as unknown as Command;

export const COMMANDS: Record<string, Command> = {
  'partner:create': command({
    summary: '--name NAME [--scopes "s1 s2"] [--sandbox]   create a partner and its first credential',
    options: { name: false, scopes: false, sandbox: true },
    check: (args) => ({ name: required(args, 'name'), scopes: scopesOf(args), environment: environmentOf(args) }),
    run: (context, { name, scopes, environment }) => context.get(PartnerCredentialsService).createPartner(name, scopes, environment),
    audit: ({ name }, issued) => ({
      subject: issued.partner_id,
      details: { name, client_id: issued.client_id, scopes: issued.scopes, environment: issued.environment },
    }),
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
    audit: ({ partnerId }, issued) => ({
      subject: issued.client_id,
      details: { partner_id: partnerId, scopes: issued.scopes, environment: issued.environment },
    }),
  }),
  'credential:revoke': command({
    summary: '--client-id ID   revoke a credential: its tokens stop working',
    options: { 'client-id': false },
    check: (args) => required(args, 'client-id'),
    run: async (context, clientId) => {
      if (!(await context.get(PartnerCredentialsService).revoke(clientId))) throw new UsageError(`no credential ${clientId}`);
      return { client_id: clientId, revoked: true };
    },
    audit: (clientId) => ({ subject: clientId }),
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
    audit: ({ partnerId, plan, to }, result) => ({
      subject: partnerId,
      details: { plan, internal_plan: to, entitlements_updated: result.entitlements_updated },
    }),
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
    audit: ({ file }, result) => ({ subject: file, details: { ...result } }),
  }),
  'kids:import': command({
    summary:
      "FILE --partner ID [--sandbox] [--restate]   load children's reading sessions (NDJSON), all or nothing; a file with sessions in a month whose figures are fixed is refused unless --restate replaces them",
    options: { partner: false, sandbox: true, restate: true },
    check: async (args) => ({
      partnerId: uuid(args, 'partner'),
      file: await readableFile(args, 'NDJSON FILE'),
      environment: environmentOf(args),
      restate: args.flags.restate === true,
    }),
    run: async (context, { partnerId, file, environment, restate }) => {
      try {
        const { restated, ...result } = await context.get(KidsActivityImporter).import(partnerId, linesOf(file), { environment, restate });
        return { partner_id: partnerId, environment, file, ...result, ...(restate && { restated_months: restated.map((month) => month.slice(0, 7)) }) };
      } catch (error) {
        if (error instanceof UnknownPartnerError) throw new UsageError(`no partner ${partnerId}`);
        if (error instanceof KidsImportRejected || error instanceof KidsImportIntoFixedMonths) throw new UsageError(error.message);
        throw error;
      }
    },
    audit: ({ partnerId }, result) => ({ subject: partnerId, details: result }),
  }),
  'subscriber:erase': command({
    summary: "--partner ID --subscriber ID [--sandbox]   erase a subscriber's data in one environment (DECISIONS 29), as DELETE /subscribers/{id}",
    options: { partner: false, subscriber: false, sandbox: true },
    check: (args) => {
      const subscriberId = required(args, 'subscriber');
      if (!SUBSCRIBER_ID_PATTERN.test(subscriberId)) throw new UsageError(`--subscriber must be ${SUBSCRIBER_ID_RULE}`);
      return { tenant: { partnerId: uuid(args, 'partner'), environment: environmentOf(args) }, subscriberId };
    },
    run: async (context, { tenant, subscriberId }) => {
      if (!(await context.get(PartnerCredentialsService).partnerExists(tenant.partnerId))) throw new UsageError(`no partner ${tenant.partnerId}`);
      return erasureDocument(await context.get(SubscriberDataService).erase(tenant, subscriberId));
    },
    // The record does not name the subscriber: an erasure must not keep its id.
    audit: ({ tenant }, result) => ({ subject: tenant.partnerId, details: { environment: tenant.environment, erased: result.erased } }),
  }),
  'partner:erase': command({
    summary: '--partner ID --confirm NAME   offboard a partner: revoke its credentials at once, then delete every row of both environments',
    options: { partner: false, confirm: false },
    check: (args) => ({ partnerId: uuid(args, 'partner'), confirmName: required(args, 'confirm') }),
    run: async (context, { partnerId, confirmName }) => {
      try {
        return await context.get(PartnerErasureService).erase(partnerId, confirmName);
      } catch (error) {
        if (error instanceof UnknownPartnerError) throw new UsageError(`no partner ${partnerId}`);
        if (error instanceof PartnerNameMismatch) throw new UsageError(error.message);
        throw error;
      }
    },
    audit: ({ partnerId }, result) => ({ subject: partnerId, details: { ...result } }),
  }),
  'subscriber:log-id': command({
    summary: '--partner ID --subscriber ID [--sandbox]   the name logs give this subscriber (sub_ and 16 hex characters)',
    options: { partner: false, subscriber: false, sandbox: true },
    check: (args) => {
      const subscriberId = required(args, 'subscriber');
      if (!SUBSCRIBER_ID_PATTERN.test(subscriberId)) throw new UsageError(`--subscriber must be ${SUBSCRIBER_ID_RULE}`);
      return { partnerId: uuid(args, 'partner').toLowerCase(), subscriberId, environment: environmentOf(args) };
    },
    // No partner check: the logs of a partner since erased may still need reading.
    run: async (context, { partnerId, subscriberId, environment }) => ({
      partner_id: partnerId,
      environment,
      log_id: new SubscriberLogIds(context.get(AppConfig).serverSecret).of(partnerId, environment, subscriberId),
    }),
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
    audit: (issuer, result) => ({ subject: issuer, details: result }),
  }),
  'secret:rotate': command({
    summary:
      '[--after-leak]   with SERVER_SECRET (new) and SERVER_SECRET_PREVIOUS (old) on every replica: move the database to the new secret; after a leak, also replace every signing key and webhook secret',
    options: { 'after-leak': true },
    check: (args) => ({ afterLeak: args.flags['after-leak'] === true }),
    run: (context, options) => context.get(SecretRotationService).rotate(options),
    audit: ({ afterLeak }, result) => ({ subject: afterLeak ? 'after-leak' : 'rotation', details: { ...result } }),
  }),
  'secret:status': command({
    summary: '   list each credential, signing key, webhook endpoint and stored answer still under another SERVER_SECRET than the recorded one',
    options: {},
    check: () => undefined,
    run: (context) => context.get(SecretStatusService).status(),
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
    audit: (_input, result) => ({ details: { applied_now: result.applied_now } }),
  }),
  'partner:list': command({
    summary: '   every partner, with its counts of active and revoked credentials',
    options: {},
    check: () => undefined,
    run: async (context) => ({
      partners: (await context.get(PartnerCredentialsService).listPartners()).map((p) => ({
        partner_id: p.id,
        name: p.name,
        created_at: p.createdAt.toISOString(),
        active_credentials: p.activeCredentials,
        revoked_credentials: p.revokedCredentials,
      })),
    }),
  }),
  'credential:list': command({
    summary: '[--partner ID]   every credential (of one partner), with when it last obtained a token (to the minute)',
    options: { partner: false },
    check: (args) => (args.flags.partner === undefined ? undefined : uuid(args, 'partner')),
    run: async (context, partnerId) => ({
      credentials: (await context.get(PartnerCredentialsService).listCredentials(partnerId)).map((c) => ({
        client_id: c.clientId,
        partner_id: c.partnerId,
        environment: c.environment,
        scopes: c.scopes,
        created_at: c.createdAt.toISOString(),
        revoked_at: c.revokedAt?.toISOString() ?? null,
        last_used_at: c.lastUsedAt?.toISOString() ?? null,
      })),
    }),
  }),
  'audit:list': command({
    summary: `[--since ISO_TIME] [--limit N]   operator actions, newest first (default ${AUDIT_LIST_DEFAULT}, at most ${AUDIT_LIST_MAX})`,
    options: { since: false, limit: false },
    check: (args) => ({ since: sinceOf(args), limit: limitOf(args) }),
    run: async (context, filter) => ({
      actions: (await context.get(OperatorAuditService).list(filter)).map((a) => ({
        id: a.id,
        at: a.at.toISOString(),
        command: a.command,
        os_user: a.osUser,
        operator: a.operator,
        subject: a.subject,
        details: a.details,
      })),
    }),
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

function sinceOf(args: Args): Date | undefined {
  if (args.flags.since === undefined) return undefined;
  const text = required(args, 'since');
  const since = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(since.getTime()))
    throw new UsageError('--since must be an ISO 8601 time, e.g. 2026-11-28 or 2026-11-28T09:00:00Z');
  return since;
}

function limitOf(args: Args): number {
  if (args.flags.limit === undefined) return AUDIT_LIST_DEFAULT;
  const text = required(args, 'limit');
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > AUDIT_LIST_MAX) throw new UsageError(`--limit must be an integer from 1 to ${AUDIT_LIST_MAX}`);
  return limit;
}

/**
 * Who runs the CLI, for the operator actions record: the OS account, and OPERATOR when set
 * (a person's name or e-mail, where several share one account or run it through automation).
 */
export function operatorIdentity(env: NodeJS.ProcessEnv = process.env): OperatorIdentity {
  let osUser: string;
  try {
    osUser = userInfo().username;
  } catch {
    // No passwd entry for the uid (a container's arbitrary user).
    osUser = env.USER ?? `uid ${process.getuid?.() ?? 'unknown'}`;
  }
  return { osUser, operator: env.OPERATOR?.trim() || null };
}

function uuid(args: Args, name: string): string {
  const value = required(args, name);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new UsageError(`--${name} must be a partner id (UUID)`);
  return value;
}

function scopesOf(args: Args): Scope[] {
  if (args.flags.scopes === undefined) return [...DEFAULT_SCOPES];
  const { scopes, unknown } = parseScopes(String(args.flags.scopes));
  if (unknown.length) throw new UsageError(`unknown scopes: ${unknown.join(', ')} (known: ${SCOPES.join(' ')})`);
  if (!scopes.length) throw new UsageError('--scopes lists no scope');
  return scopes;
}

const environmentOf = (args: Args) => (args.flags.sandbox ? 'sandbox' : 'live') as 'live' | 'sandbox';
