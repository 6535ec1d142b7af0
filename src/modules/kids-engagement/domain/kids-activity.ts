import { SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE } from '../../../shared/identifiers.js';

/** One reading session of a child, as the partner's kids app reports it (DECISIONS 18). */
export interface KidsActivityRecord {
  /** The partner's account (its subscriber id, as in the kidsapp entitlement). */
  accountId: string;
  /** The partner's reference to one child of the account. */
  childRef: string;
  storyId: string;
  minutes: number;
  /** When the story was finished in this session; null when it was not. */
  completedAt: Date | null;
  occurredAt: Date;
}

/** A session longer than a day is a mistake in the file, not a reading habit. */
export const MAX_SESSION_MINUTES = 1440;

const FIELDS = ['account_id', 'child_ref', 'story_id', 'minutes', 'completed_at', 'occurred_at'] as const;
const INSTANT = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Why one line of an import file was refused; the message names the line and the field. */
export class InvalidKidsActivityLine extends Error {
  constructor(
    readonly lineNumber: number,
    problem: string,
  ) {
    super(`line ${lineNumber}: ${problem}`);
    this.name = 'InvalidKidsActivityLine';
  }
}

/**
 * Reads one NDJSON line `{account_id, child_ref, story_id, minutes, completed_at|null,
 * occurred_at}`. Every field is required (`completed_at` may be null) and no other field
 * is accepted: a misspelt field must fail the import rather than be dropped.
 */
export function parseKidsActivityLine(line: string, lineNumber: number): KidsActivityRecord {
  const fail = (problem: string) => new InvalidKidsActivityLine(lineNumber, problem);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw fail('is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('must be a JSON object');
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((name) => !(FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) throw fail(`${unknown} is not a field (expected ${FIELDS.join(', ')})`);
  const missing = FIELDS.find((name) => !(name in fields));
  if (missing !== undefined) throw fail(`${missing} is required`);

  const identifier = (name: 'account_id' | 'child_ref' | 'story_id'): string => {
    const text = fields[name];
    if (typeof text !== 'string' || !SUBSCRIBER_ID_PATTERN.test(text)) throw fail(`${name} must be ${SUBSCRIBER_ID_RULE}`);
    return text;
  };
  const instant = (name: 'completed_at' | 'occurred_at'): Date => {
    const text = fields[name];
    const date = typeof text === 'string' ? parseInstant(text) : null;
    if (!date) throw fail(`${name} must be an ISO 8601 date-time with a time zone, such as 2026-11-02T18:30:00Z`);
    return date;
  };
  const minutes = fields.minutes;
  if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes < 0 || minutes > MAX_SESSION_MINUTES) {
    throw fail(`minutes must be a number from 0 to ${MAX_SESSION_MINUTES}`);
  }
  return {
    accountId: identifier('account_id'),
    childRef: identifier('child_ref'),
    storyId: identifier('story_id'),
    minutes,
    completedAt: fields.completed_at === null ? null : instant('completed_at'),
    occurredAt: instant('occurred_at'),
  };
}

function parseInstant(text: string): Date | null {
  const match = INSTANT.exec(text);
  if (!match) return null;
  const date = new Date(text);
  // The calendar date must exist: JavaScript would roll 2026-02-30 over to March.
  const day = new Date(`${match[1]}T00:00:00Z`);
  return Number.isNaN(date.getTime()) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== match[1] ? null : date;
}

/** An import refused whole: nothing was stored. Lists the first problems found. */
export class KidsImportRejected extends Error {
  constructor(readonly problems: readonly InvalidKidsActivityLine[]) {
    super(`nothing was imported; fix these lines and import the whole file again:\n${problems.map((p) => p.message).join('\n')}`);
    this.name = 'KidsImportRejected';
  }
}

/**
 * An import refused whole because some of its sessions fall in months whose figures are
 * fixed (DECISIONS 15): nothing was stored. Names the months.
 */
export class KidsImportIntoFixedMonths extends Error {
  constructor(readonly months: readonly string[]) {
    const named = months.map((month) => month.slice(0, 7)).join(', ');
    super(
      `nothing was imported: the file has sessions in ${named}, whose figures are fixed (an answer covered them); ` +
        "pass --restate to replace those months' figures with the data after this import",
    );
    this.name = 'KidsImportIntoFixedMonths';
  }
}
