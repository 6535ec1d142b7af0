import { parser } from '@prometheus-io/lezer-promql';
import { parseDocument } from 'yaml';

/**
 * The checks `promtool check rules` makes on an alert-rules file, for machines without
 * promtool (it comes from Debian's prometheus package, not npm): the file's structure as
 * Prometheus's rulefmt reads it (no unknown field, unique group names, one of record or
 * alert, durations, label names, string values), each `expr` parsed with the Prometheus
 * project's own PromQL grammar (@prometheus-io/lezer-promql) and its argument types checked
 * as Prometheus's parser does, the alert templates parsed, and promtool's duplicate-rules
 * lint. Answers one line per problem, none when the file passes.
 */
export function ruleFileProblems(text: string): string[] {
  const document = parseDocument(text, { uniqueKeys: true });
  if (document.errors.length) return document.errors.map((error) => `yaml: ${error.message.split('\n')[0]}`);
  const problems: string[] = [];
  const file = document.toJS() as unknown;
  if (!isRecord(file)) return ['the file is not a map with `groups`'];
  unknownFields(file, ['groups'], 'file', problems);
  if (!Array.isArray(file.groups)) return [...problems, 'file: `groups` is not a list'];
  const groupNames = new Set<string>();
  const ruleIdentities = new Set<string>();
  for (const [index, group] of file.groups.entries()) {
    if (!isRecord(group)) {
      problems.push(`group ${index + 1}: not a map`);
      continue;
    }
    const where = `group ${JSON.stringify(group.name ?? index + 1)}`;
    unknownFields(group, ['name', 'interval', 'query_offset', 'limit', 'labels', 'rules'], where, problems);
    if (typeof group.name !== 'string' || group.name === '') problems.push(`${where}: groupname must not be empty`);
    else if (groupNames.has(group.name)) problems.push(`${where}: groupname is repeated in the same file`);
    else groupNames.add(group.name);
    for (const field of ['interval', 'query_offset']) if (field in group) duration(group[field], `${where}: ${field}`, problems);
    if ('limit' in group && !(Number.isInteger(group.limit) && (group.limit as number) >= 0)) problems.push(`${where}: limit is not a whole number`);
    if ('labels' in group) labelMap(group.labels, `${where}: labels`, problems);
    if (!Array.isArray(group.rules)) {
      problems.push(`${where}: rules is not a list`);
      continue;
    }
    for (const [position, rule] of group.rules.entries()) {
      if (!isRecord(rule)) {
        problems.push(`${where}, rule ${position + 1}: not a map`);
        continue;
      }
      const ruleWhere = `${where}, rule ${JSON.stringify(rule.alert ?? rule.record ?? position + 1)}`;
      checkRule(rule, ruleWhere, problems);
      // promtool's duplicate-rules lint, across the file: the same name with the same labels (the group's and its own).
      const labels = { ...(isRecord(group.labels) ? group.labels : {}), ...(isRecord(rule.labels) ? rule.labels : {}) };
      const identity = JSON.stringify([rule.alert ?? rule.record, Object.entries(labels).sort()]);
      if (ruleIdentities.has(identity)) problems.push(`${ruleWhere}: duplicate rule (the same name and labels)`);
      ruleIdentities.add(identity);
    }
  }
  return problems;
}

function checkRule(rule: Record<string, unknown>, where: string, problems: string[]): void {
  unknownFields(rule, ['record', 'alert', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations'], where, problems);
  const isAlert = 'alert' in rule;
  if ('record' in rule === isAlert) problems.push(`${where}: ${isAlert ? 'only one' : 'one'} of 'record' and 'alert' must be set`);
  if (isAlert && (typeof rule.alert !== 'string' || rule.alert === '')) problems.push(`${where}: 'alert' must be a non-empty string`);
  if ('record' in rule && !isAlert) {
    if (typeof rule.record !== 'string' || !METRIC_NAME.test(rule.record)) problems.push(`${where}: invalid recording rule name`);
    for (const field of ['annotations', 'for', 'keep_firing_for']) if (field in rule) problems.push(`${where}: invalid field '${field}' in recording rule`);
  }
  if (typeof rule.expr !== 'string' || rule.expr.trim() === '') problems.push(`${where}: field 'expr' must be set in rule`);
  else for (const problem of promqlProblems(rule.expr)) problems.push(`${where}: expr: ${problem}`);
  for (const field of ['for', 'keep_firing_for']) if (field in rule) duration(rule[field], `${where}: ${field}`, problems);
  for (const field of ['labels', 'annotations']) {
    if (!(field in rule)) continue;
    labelMap(rule[field], `${where}: ${field}`, problems);
    // Prometheus expands an alert's labels and annotations as templates: they must parse.
    if (isAlert && isRecord(rule[field]))
      for (const [name, value] of Object.entries(rule[field]))
        if (typeof value === 'string') for (const problem of templateProblems(value)) problems.push(`${where}: ${field}.${name}: ${problem}`);
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
// Prometheus's model.ParseDuration: units from the largest down, each at most once; "0" alone.
const DURATION = /^(?:0|(?=\d)(?:\d+y)?(?:\d+w)?(?:\d+d)?(?:\d+h)?(?:\d+m)?(?:\d+s)?(?:\d+ms)?)$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownFields(node: Record<string, unknown>, known: string[], where: string, problems: string[]): void {
  for (const field of Object.keys(node)) if (!known.includes(field)) problems.push(`${where}: field ${field} not found`);
}

function duration(value: unknown, where: string, problems: string[]): void {
  if (!DURATION.test(String(value)) || typeof value === 'boolean') problems.push(`${where}: not a valid duration string: ${JSON.stringify(value)}`);
}

function labelMap(value: unknown, where: string, problems: string[]): void {
  if (!isRecord(value)) {
    problems.push(`${where}: not a map`);
    return;
  }
  for (const [name, text] of Object.entries(value)) {
    if (!LABEL_NAME.test(name)) problems.push(`${where}: invalid label name: ${name}`);
    if (typeof text !== 'string') problems.push(`${where}: ${name} is not a string`);
  }
}

// ---- PromQL -------------------------------------------------------------------------------

type Node = ReturnType<typeof parser.parse>['topNode'];
type ValueType = 'vector' | 'matrix' | 'scalar' | 'string' | 'unknown';

/**
 * Argument and return types of PromQL's functions, as Prometheus's parser declares them:
 * v instant vector, m range vector, s scalar, t string; a trailing `?` makes the last
 * argument optional, `*` repeatable.
 */
const FUNCTIONS: Record<string, string> = {
  ...Object.fromEntries(
    'abs ceil exp floor ln log2 log10 sqrt sgn deg rad acos acosh asin asinh atan atanh cos cosh sin sinh tan tanh sort sort_desc timestamp histogram_avg histogram_count histogram_sum histogram_stddev histogram_stdvar'
      .split(' ')
      .map((name) => [name, 'v:v']),
  ),
  ...Object.fromEntries(
    'rate irate increase delta idelta deriv changes resets absent_over_time present_over_time avg_over_time count_over_time last_over_time first_over_time max_over_time min_over_time sum_over_time stddev_over_time stdvar_over_time mad_over_time ts_of_first_over_time ts_of_last_over_time ts_of_max_over_time ts_of_min_over_time'
      .split(' ')
      .map((name) => [name, 'm:v']),
  ),
  ...Object.fromEntries('day_of_month day_of_week day_of_year days_in_month hour minute month year'.split(' ').map((name) => [name, 'v?:v'])),
  absent: 'v:v',
  clamp: 'vss:v',
  clamp_max: 'vs:v',
  clamp_min: 'vs:v',
  double_exponential_smoothing: 'mss:v',
  histogram_fraction: 'ssv:v',
  histogram_quantile: 'sv:v',
  label_join: 'vttt*:v',
  label_replace: 'vtttt:v',
  pi: ':s',
  predict_linear: 'ms:v',
  quantile_over_time: 'sm:v',
  round: 'vs?:v',
  scalar: 'v:s',
  sort_by_label: 'vt*:v',
  sort_by_label_desc: 'vt*:v',
  time: ':s',
  vector: 's:v',
};
const TYPE_OF: Record<string, ValueType> = { v: 'vector', m: 'matrix', s: 'scalar', t: 'string' };
/** Aggregations that take a parameter before the vector, and its type. */
const AGGREGATION_PARAMETER: Record<string, ValueType> = {
  topk: 'scalar',
  bottomk: 'scalar',
  quantile: 'scalar',
  limitk: 'scalar',
  limit_ratio: 'scalar',
  count_values: 'string',
};
const SET_OPERATORS = new Set(['and', 'or', 'unless']);
const COMPARISONS = new Set(['==', '!=', '>', '<', '>=', '<=']);

/** Syntax errors (with where they are) and type errors of one PromQL expression. */
export function promqlProblems(expr: string): string[] {
  const tree = parser.parse(expr);
  const problems: string[] = [];
  // The first syntax error, as Prometheus's parser reports it: the later ones follow from it.
  tree.iterate({
    enter(node) {
      if (!node.type.isError || problems.length) return;
      const found = expr.slice(node.from, node.to) || (node.from >= expr.length ? 'end of input' : expr.slice(node.from, node.from + 10));
      problems.push(`syntax error at character ${node.from + 1}, near ${JSON.stringify(found)}`);
    },
  });
  if (problems.length) return problems;
  const type = typeOf(tree.topNode, expr, problems);
  if (type === 'matrix' || type === 'string')
    problems.push(`a rule's expression must be an instant vector or a scalar, not a ${type === 'matrix' ? 'range vector' : 'string'}`);
  return problems;
}

/** A PromQL string literal's value ("…" with escapes as in JSON, '…' or `…`). */
function stringValue(literal: string): string {
  return literal.startsWith('"') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
}

/** Whether a label matcher (`name op "value"`) matches a series without that label. */
function matchesEmpty(matcher: Node, expr: string): boolean {
  const [, op, value] = children(matcher).map((part) => expr.slice(part.from, part.to));
  const literal = stringValue(value);
  const regexMatchesEmpty = () => {
    try {
      return new RegExp(`^(?:${literal})$`).test('');
    } catch {
      return false;
    }
  };
  return op === '=' ? literal === '' : op === '!=' ? literal !== '' : op === '=~' ? regexMatchesEmpty() : !regexMatchesEmpty();
}

/** The metric names an expression reads: its selectors' names, written before the braces or as `__name__="…"`. */
export function metricNames(expr: string): string[] {
  const names: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(expr.slice(node.from, node.to));
      if (node.name !== 'UnquotedLabelMatcher') return;
      const [label, op, value] = children(node.node).map((part) => expr.slice(part.from, part.to));
      if (label === '__name__' && op === '=') names.push(stringValue(value));
    },
  });
  return names;
}

/** The children that carry meaning (comments left out). */
function children(node: Node): Node[] {
  const list: Node[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) if (child.name !== 'LineComment') list.push(child);
  return list;
}

function typeOf(node: Node, expr: string, problems: string[]): ValueType {
  const text = (n: Node) => expr.slice(n.from, n.to);
  const expect = (n: Node, wanted: ValueType[], what: string) => {
    const got = typeOf(n, expr, problems);
    if (got !== 'unknown' && !wanted.includes(got)) problems.push(`${what}: expected ${wanted.join(' or ')}, got ${got} in ${JSON.stringify(text(n))}`);
    return got;
  };
  const parts = children(node);
  switch (node.name) {
    case 'PromQL':
    case 'ParenExpr':
      return typeOf(parts[0], expr, problems);
    case 'NumberDurationLiteral':
      return 'scalar';
    case 'StringLiteral':
      return 'string';
    case 'VectorSelector':
      if (
        !parts.some((part) => part.name === 'Identifier') &&
        !children(parts[0]).some((matcher) => matcher.name === 'QuotedLabelName' || !matchesEmpty(matcher, expr))
      )
        problems.push(`vector selector must contain at least one non-empty matcher: ${JSON.stringify(text(node))}`);
      return 'vector';
    case 'MatrixSelector':
      typeOf(parts[0], expr, problems);
      return 'matrix';
    case 'SubqueryExpr':
      expect(parts[0], ['vector'], 'subquery');
      return 'matrix';
    case 'OffsetExpr':
    case 'StepInvariantExpr':
      return typeOf(parts[0], expr, problems);
    case 'UnaryExpr':
      return expect(parts[1], ['vector', 'scalar'], 'unary expression');
    case 'BinaryExpr': {
      const operator = text(parts[1]).toLowerCase();
      const left = expect(parts[0], ['vector', 'scalar'], `operand of ${operator}`);
      const right = expect(parts[parts.length - 1], ['vector', 'scalar'], `operand of ${operator}`);
      if (SET_OPERATORS.has(operator) && (left === 'scalar' || right === 'scalar'))
        problems.push(`set operator ${operator} not allowed in binary scalar expression`);
      const bool = parts.some((part) => part.name === 'BoolModifier');
      if (COMPARISONS.has(operator) && left === 'scalar' && right === 'scalar' && !bool) problems.push('comparisons between scalars must use BOOL modifier');
      return left === 'vector' || right === 'vector' ? 'vector' : left === 'unknown' || right === 'unknown' ? 'unknown' : 'scalar';
    }
    case 'AggregateExpr': {
      const name = text(parts[0]).toLowerCase();
      const body = parts.find((part) => part.name === 'FunctionCallBody');
      const args = body ? children(body) : [];
      const parameter = AGGREGATION_PARAMETER[name];
      if (args.length !== (parameter ? 2 : 1)) problems.push(`wrong number of arguments for aggregate expression ${name}: ${args.length}`);
      else {
        if (parameter) expect(args[0], [parameter], `parameter of ${name}`);
        expect(args[args.length - 1], ['vector'], `argument of ${name}`);
      }
      return 'vector';
    }
    case 'FunctionCall': {
      const name = text(parts[0]);
      const args = children(parts[1]);
      const signature = FUNCTIONS[name];
      if (!signature) {
        for (const arg of args) typeOf(arg, expr, problems);
        return 'unknown';
      }
      const [wanted, returns] = signature.split(':');
      const types = [...wanted.replace(/[?*]/g, '')];
      const optional = wanted.endsWith('?') ? 1 : 0;
      const repeated = wanted.endsWith('*');
      const most = repeated ? Infinity : types.length;
      const least = repeated ? types.length - 1 : types.length - optional;
      if (args.length < least || args.length > most) problems.push(`wrong number of arguments for ${name}(): ${args.length}`);
      for (const [index, arg] of args.entries()) expect(arg, [TYPE_OF[types[Math.min(index, types.length - 1)]]], `argument ${index + 1} of ${name}()`);
      return TYPE_OF[returns];
    }
    default:
      for (const part of parts) typeOf(part, expr, problems);
      return 'unknown';
  }
}

// ---- Templates ----------------------------------------------------------------------------

/** Go's text/template builtins and the functions Prometheus adds for alert templates. */
const TEMPLATE_FUNCTIONS = new Set(
  (
    'and or not len index slice print printf println html js urlquery call eq ne lt le gt ge ' +
    'query first label value strvalue args reReplaceAll safeHtml match title toUpper toLower graphLink tableLink sortByLabel ' +
    'humanize humanize1024 humanizeDuration humanizePercentage humanizeTimestamp toTime toDuration pathPrefix externalURL parseDuration stripPort stripDomain now'
  ).split(' '),
);
const TEMPLATE_VARIABLES = new Set(['$', '$labels', '$externalLabels', '$externalURL', '$value']);
const BLOCK_OPENERS = new Set(['if', 'range', 'with', 'define', 'block']);

/**
 * Parses a Go text/template as Prometheus expands alert labels and annotations: every
 * action closed, its words known (functions, variables Prometheus defines or the template
 * declares, fields, literals), `if`/`range`/`with` blocks balanced with `end`.
 */
export function templateProblems(template: string): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  const variables = new Set(TEMPLATE_VARIABLES);
  let rest = template;
  for (let start = rest.indexOf('{{'); start >= 0; start = rest.indexOf('{{')) {
    const end = rest.indexOf('}}', start + 2);
    if (end < 0) return [...problems, `unclosed action: ${JSON.stringify(rest.slice(start, start + 30))}`];
    const action = rest
      .slice(start + 2, end)
      .replace(/^-\s/, '')
      .replace(/\s-$/, '')
      .trim();
    rest = rest.slice(end + 2);
    if (action.startsWith('/*')) continue;
    if (action === '') {
      problems.push('missing value for command: {{}}');
      continue;
    }
    const words = tokens(action, problems);
    if (!words) continue;
    const [first] = words;
    if (BLOCK_OPENERS.has(first)) open.push(first);
    else if (first === 'end') {
      if (!open.pop()) problems.push('unexpected {{end}}');
      continue;
    } else if (first === 'else') {
      if (!open.length) problems.push('unexpected {{else}}');
    }
    for (const [index, word] of words.entries()) {
      if ([':=', '=', '|', '(', ')', ','].includes(word)) {
        if (word === '|' && (index === 0 || index === words.length - 1 || words[index + 1] === '|'))
          problems.push(`missing command in pipeline: {{${action}}}`);
        continue;
      }
      if (word.startsWith('$')) {
        const name = word.split('.')[0];
        // Declared here: `$x := …`, `range $i, $v := …`.
        if (words[index + 1] === ':=' || (words[index + 1] === ',' && words.includes(':='))) variables.add(name);
        else if (!variables.has(name)) problems.push(`undefined variable ${JSON.stringify(name)} in {{${action}}}`);
      } else if (/^[a-zA-Z_]\w*$/.test(word) && !TEMPLATE_FUNCTIONS.has(word) && !BLOCK_OPENERS.has(word) && !['else', 'nil', 'true', 'false'].includes(word))
        problems.push(`function ${JSON.stringify(word)} not defined in {{${action}}}`);
    }
    if (words.filter((word) => word === '(').length !== words.filter((word) => word === ')').length) problems.push(`unbalanced parentheses in {{${action}}}`);
  }
  for (const block of open) problems.push(`unexpected EOF: {{${block}}} without {{end}}`);
  return problems;
}

// A string, number or `.Field`: a value, never a function name.
const LITERAL = '#';

/** The words of an action: strings and numbers as literals, `.Field` chains, variables, operators. */
function tokens(action: string, problems: string[]): string[] | undefined {
  const words: string[] = [];
  const pattern =
    /\s+|("(?:[^"\\]|\\.)*"|`[^`]*`|'(?:[^'\\]|\\.)+')|(-?\d[\w.+-]*)|(\$\w*(?:\.\w+)*|\.(?:\w+(?:\.\w+)*)?)|(:=|=|\||\(|\)|,)|([a-zA-Z_]\w*(?:\.\w+)*)|(.)/gy;
  for (let match = pattern.exec(action); match; match = pattern.exec(action)) {
    const [, literal, number, variable, operator, identifier, stray] = match;
    if (stray !== undefined) {
      problems.push(`unexpected ${JSON.stringify(stray)} in {{${action}}}`);
      return undefined;
    }
    if (literal !== undefined || number !== undefined) words.push(LITERAL);
    else if (variable !== undefined) words.push(variable.startsWith('.') ? LITERAL : variable);
    else if (operator !== undefined || identifier !== undefined) words.push((operator ?? identifier)!);
  }
  return words;
}
