import { isJson, type OpenApiDocument, type Operation, type ResponseSpec } from './openapi-model.js';

/**
 * The checks of the conformance fuzzer, in the spirit of Schemathesis' default checks, and
 * the collection and grouped report of their failures. Every check records every failure;
 * the report groups them per operation and per kind, with one concrete example each.
 */

export const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
  'positive_data_acceptance',
  'ignored_auth',
] as const;
export type Check = (typeof CHECKS)[number];

/** What was sent and what came back, as a report shows them. */
export interface Exchange {
  operation: Operation;
  /** e.g. "positive", "negative: below minimum 1 at query.page", "no credentials". */
  purpose: string;
  method: string;
  url: string;
  authLabel: string;
  contentType?: string;
  payload?: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  bodyBytes: number;
  /** The generated strings of the request (parameters, body fields), blanked out of error descriptions when grouping. */
  sentValues: string[];
}

export interface Failure {
  check: Check;
  operation: string;
  /** Failures with the same signature (per operation) are one kind of discrepancy. */
  signature: string;
  exchange: Exchange;
}

const snippet = (text: string, length: number) => {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > length ? `${flat.slice(0, length)}…` : flat;
};

export const mediaTypeOf = (exchange: Exchange) =>
  String(exchange.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

/** The error code and description of a contract error body, if the answer is one. */
export function errorOf(exchange: Exchange): { error: string; description: string } | undefined {
  try {
    const body = JSON.parse(exchange.body);
    if (body && typeof body.error === 'string') return { error: body.error, description: String(body.error_description ?? '') };
  } catch {
    // not JSON
  }
  return undefined;
}

/** An error answer with its generated values blanked, so that one kind of refusal is one group. */
export function errorSignature(exchange: Exchange): string {
  const error = errorOf(exchange);
  if (!error) return `${exchange.status} ${snippet(exchange.body, 80)}`;
  let description = error.description;
  for (const value of [...exchange.sentValues].filter((sent) => sent.length >= 3).sort((a, b) => b.length - a.length))
    description = description.split(value).join('…');
  description = description.replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '…').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>');
  return `${exchange.status} ${error.error}: ${snippet(description, 140)}`;
}

/** The documented response for a status: exact, else its range (4XX), else default. */
export function documentedResponse(operation: Operation, status: number): ResponseSpec | undefined {
  return operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.DEFAULT;
}

const mediaTypeMatches = (documented: string, actual: string) => {
  if (documented === '*/*' || documented === actual) return true;
  const [type, subtype] = documented.split('/');
  return subtype === '*' && actual.split('/')[0] === type;
};

export class FailureLog {
  readonly failures = new Map<Check, Failure[]>(CHECKS.map((check) => [check, []]));
  /** Per operation: how many positive requests were sent, and the statuses they got. */
  readonly positiveStatuses = new Map<string, Map<number, number>>();
  /** Required response headers the document declares, over all operations and statuses. */
  requiredHeadersDeclared = 0;
  exchanges = 0;

  constructor(private readonly document: OpenApiDocument) {}

  fail(check: Check, exchange: Exchange, signature: string): void {
    this.failures.get(check)!.push({ check, operation: exchange.operation.id, signature, exchange });
  }

  /** Checks 1 to 5, which hold for every answer whatever was sent. */
  checkAnswer(exchange: Exchange): void {
    this.exchanges += 1;
    const { operation, status } = exchange;
    if (status >= 500) this.fail('not_a_server_error', exchange, errorSignature(exchange));

    const documented = documentedResponse(operation, status);
    if (!documented) {
      this.fail(
        'status_code_conformance',
        exchange,
        `${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}) — ${errorSignature(exchange)}`,
      );
      return;
    }

    const mediaType = mediaTypeOf(exchange);
    const documentedTypes = Object.keys(documented.content);
    if (exchange.bodyBytes > 0) {
      if (!mediaType) this.fail('content_type_conformance', exchange, `${status} has a body but no Content-Type`);
      else if (documentedTypes.length === 0)
        this.fail('content_type_conformance', exchange, `${status} answered ${mediaType}, the document declares no content for ${status}`);
      else if (!documentedTypes.some((documentedType) => mediaTypeMatches(documentedType, mediaType))) {
        this.fail('content_type_conformance', exchange, `${status} answered ${mediaType}, documented: ${documentedTypes.join(', ')}`);
      }
    }

    for (const [name, header] of Object.entries(documented.headers)) {
      if (header.required && exchange.headers[name] === undefined)
        this.fail('response_headers_conformance', exchange, `${status} lacks the required header ${name}`);
    }

    const documentedType = documentedTypes.find((candidate) => mediaTypeMatches(candidate, mediaType));
    const schema = documentedType ? documented.content[documentedType] : undefined;
    if (schema && isJson(mediaType)) {
      let body: unknown;
      try {
        body = JSON.parse(exchange.body);
      } catch {
        this.fail('response_schema_conformance', exchange, `${status} ${mediaType} body is not JSON`);
        return;
      }
      const problem = this.document.validate(schema, body);
      if (problem) {
        // Array positions and repeated complaints make no new kind of failure.
        const kinds = [...new Set(problem.replace(/\/\d+(?=\/|\s|$)/g, '/*').split('; '))].join('; ');
        this.fail('response_schema_conformance', exchange, `${status}: ${snippet(kinds, 220)}`);
      }
    }
  }

  countRequiredHeaders(operations: Operation[]): void {
    this.requiredHeadersDeclared = operations.reduce(
      (count, operation) =>
        count +
        Object.values(operation.responses).reduce((inner, response) => inner + Object.values(response.headers).filter((header) => header.required).length, 0),
      0,
    );
  }

  recordPositive(exchange: Exchange): void {
    const statuses = this.positiveStatuses.get(exchange.operation.id) ?? new Map<number, number>();
    statuses.set(exchange.status, (statuses.get(exchange.status) ?? 0) + 1);
    this.positiveStatuses.set(exchange.operation.id, statuses);
  }

  /** The coverage of positive requests: per operation, the statuses they got. */
  positiveCoverage(operations: Operation[]): string {
    const lines = operations.map((operation) => {
      const statuses = this.positiveStatuses.get(operation.id);
      const counts = statuses
        ? [...statuses.entries()]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${status}×${count}`)
            .join(' ')
        : 'none sent';
      const reached = statuses && [...statuses.keys()].some((status) => status >= 200 && status < 300);
      return `  ${reached ? '2xx' : '---'} ${operation.id}: ${counts}`;
    });
    const reached = lines.filter((line) => line.startsWith('  2xx')).length;
    return [`Positive requests got a 2xx on ${reached} of ${operations.length} operations ("---": acceptance seen only up to a 4xx):`, ...lines].join('\n');
  }

  /** The grouped report of one check's failures, or null when it has none. */
  report(check: Check, footer: string): string | null {
    const failures = this.failures.get(check)!;
    if (failures.length === 0) return null;
    const byOperation = new Map<string, Map<string, Failure[]>>();
    for (const failure of failures) {
      const groups = byOperation.get(failure.operation) ?? new Map<string, Failure[]>();
      // Numbers apart ("Chapter 2 …", "Chapter 3 …"), the same kind; shown as its first.
      const key = failure.signature.replace(/\b\d+\b/g, 'N');
      groups.set(key, [...(groups.get(key) ?? []), failure]);
      byOperation.set(failure.operation, groups);
    }
    const lines = [`${check}: ${failures.length} failing answers in ${byOperation.size} operations`, footer, ''];
    for (const [operation, groups] of byOperation) {
      lines.push(operation);
      for (const members of groups.values()) {
        const example = members[0].exchange;
        lines.push(`  [×${members.length}] ${members[0].signature}`);
        lines.push(`      request: ${example.method} ${snippet(example.url, 220)}  (${example.purpose}; auth: ${example.authLabel})`);
        if (example.payload !== undefined) lines.push(`      body (${example.contentType}): ${snippet(example.payload, 220)}`);
        lines.push(`      answer:  ${example.status} ${String(example.headers['content-type'] ?? '(no content-type)')} ${snippet(example.body, 260)}`);
      }
      lines.push('');
    }
    return lines.join('\n');
  }
}

/**
 * 400s a valid-looking request gets because of stored data, which the contract itself
 * names (Schemathesis' positive check would be configured to expect them too): an ending
 * the novel does not have (DECISIONS 7), and a playback position for a chapter the novel
 * does not have or that is not released to the subscriber (DECISIONS 5, 12). Each pairs
 * an operation with the words of its refusal, so any other 400 still fails.
 */
const DATA_DEPENDENT_REFUSALS: { path: RegExp; description: RegExp }[] = [
  { path: /\/novels\/\{id\}\/choices$/, description: /^choice_id .* is not an ending of novel / },
  { path: /\/subscribers?\/\{id\}\/playback-position$/, description: /^chapter_id .* names no chapter of novel |is not yet released/ },
  // A test clock's time is relative to the real time and to the clock's own: no schema can say it.
  { path: /\/test-clocks$/, description: /^frozen_time must be within a year of now/ },
  { path: /\/test-clocks\/\{id\}\/advance$/, description: /^frozen_time must be (later than|at most a year after) the clock's current time/ },
];

export function dataDependentRefusal(operation: Operation, exchange: Exchange): boolean {
  const error = errorOf(exchange);
  return (
    exchange.status === 400 &&
    error !== undefined &&
    DATA_DEPENDENT_REFUSALS.some((refusal) => refusal.path.test(operation.path) && refusal.description.test(error.description))
  );
}
