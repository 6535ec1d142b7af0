import fc from 'fast-check';

/**
 * Schema-driven data generation for the OpenAPI conformance fuzzer: fast-check arbitraries
 * of values that satisfy a JSON Schema (positive), and of values that violate it (negative).
 *
 * Covers the subset of JSON Schema the document uses: type (also as an array, and the 3.0
 * `nullable`), enum, const, format (date-time, date, uuid, uri), pattern, minLength and
 * maxLength, minimum and maximum (also exclusive), required, additionalProperties, items,
 * minItems and maxItems, uniqueItems, local $ref, allOf, oneOf and anyOf.
 *
 * Every value is checked by the caller against the document with Ajv before it is sent
 * (openapi-conformance.e2e-spec.ts), so that a generator bug shows as such and never as a
 * discrepancy of the service.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Schema = Record<string, any>;

export interface GenerationOptions {
  /** Resolves a local reference such as #/components/schemas/Foo. */
  resolveRef(ref: string): Schema;
  /** date-time values are drawn from this window (see the spec's judgement calls). */
  dateTimeWindow: { from: Date; to: Date };
  /** date values (YYYY-MM-DD) are drawn from this window. */
  dateWindow: { from: Date; to: Date };
  /** Whether positive objects may carry properties the schema does not name (when it allows them). */
  extraProperties: boolean;
}

const MAX_STRING = 24;
const MAX_ARRAY = 3;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Follows $ref (siblings of a $ref are kept, as OpenAPI 3.1 allows) and flattens allOf. */
export function normalize(schema: Schema | boolean | undefined, options: Pick<GenerationOptions, 'resolveRef'>): Schema {
  if (schema === undefined || schema === true) return {};
  if (schema === false) return { not: {} };
  let current: Schema = schema;
  for (let hops = 0; typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${current.$ref}`);
    const { $ref, ...siblings } = current;
    current = { ...options.resolveRef($ref), ...siblings };
  }
  if (Array.isArray(current.allOf)) {
    const { allOf, ...rest } = current;
    let merged: Schema = { ...rest };
    for (const part of allOf as Schema[]) {
      const flat = normalize(part, options);
      merged = {
        ...flat,
        ...merged,
        properties: { ...(flat.properties ?? {}), ...(merged.properties ?? {}) },
        required: [...new Set([...(flat.required ?? []), ...(merged.required ?? [])])],
      };
    }
    if (Object.keys(merged.properties).length === 0) delete merged.properties;
    if (merged.required.length === 0) delete merged.required;
    current = merged;
  }
  return current;
}

/** The JSON types a schema admits (undefined: any), with `nullable` folded in. */
export function typesOf(schema: Schema): string[] | undefined {
  let types: string[] | undefined = Array.isArray(schema.type) ? [...schema.type] : typeof schema.type === 'string' ? [schema.type] : undefined;
  if (!types && schema.properties) types = ['object'];
  if (types && schema.nullable === true && !types.includes('null')) types.push('null');
  return types;
}

const codePointLength = (value: string) => [...value].length;

/**
 * Strings of code points, mostly printable ASCII, sometimes anything Unicode; mostly short,
 * sometimes long (up to 300 beyond minLength), so that undocumented length limits show.
 */
function plainString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  const short = Math.min(maxLength, minLength + MAX_STRING);
  const long = Math.min(maxLength, minLength + 300);
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength, maxLength: short }) },
    // No NUL: the service refuses U+0000 in every field (docs/api-reference.md), a rule no schema states.
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength, maxLength: short }).map((text) => text.replaceAll('\u0000', 'N')) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: Math.min(short + 1, long), maxLength: long }) },
  );
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

function stringArbitrary(schema: Schema, options: GenerationOptions): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Number.POSITIVE_INFINITY;
  const fits = (value: string) => codePointLength(value) >= minLength && codePointLength(value) <= maxLength;
  let base: fc.Arbitrary<string>;
  switch (schema.format) {
    case 'date-time':
      base = fc.date({ min: options.dateTimeWindow.from, max: options.dateTimeWindow.to, noInvalidDate: true }).map((date) => date.toISOString());
      break;
    case 'date':
      base = fc.date({ min: options.dateWindow.from, max: options.dateWindow.to, noInvalidDate: true }).map(isoDay);
      break;
    case 'uuid':
      base = fc.uuid();
      break;
    case 'uri':
      base = fc.webUrl();
      break;
    default:
      base = schema.pattern
        ? fc.stringMatching(new RegExp(withoutLookarounds(schema.pattern)), { maxLength: Math.min(maxLength, MAX_STRING * 2) })
        : plainString(minLength, maxLength);
  }
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  return guardedFilter(base, (value) => fits(value) && (!pattern || pattern.test(value)), `a string for ${JSON.stringify(schema)}`);
}

/** arbitrary.filter, failing loudly (a generator bug) instead of looping when nothing passes. */
export function guardedFilter<T>(arbitrary: fc.Arbitrary<T>, predicate: (value: T) => boolean, what: string): fc.Arbitrary<T> {
  let misses = 0;
  return arbitrary.filter((value) => {
    if (predicate(value)) {
      misses = 0;
      return true;
    }
    if (++misses > 20_000) throw new Error(`the generator cannot produce ${what}`);
    return false;
  });
}

/**
 * The pattern without its lookaround groups ((?=…), (?!…), (?<=…), (?<!…)), which
 * fc.stringMatching cannot generate from: generation uses the rest, and the full pattern
 * then filters what was generated.
 */
export function withoutLookarounds(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      out += pattern.slice(i, i + 2);
      i += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char;
      continue;
    }
    if (char === '[') {
      inClass = true;
      out += char;
      continue;
    }
    if (char === '(' && /^\(\?(=|!|<=|<!)/.test(pattern.slice(i))) {
      let depth = 0;
      let classInside = false;
      for (; i < pattern.length; i++) {
        const inner = pattern[i];
        if (inner === '\\') {
          i += 1;
          continue;
        }
        if (classInside) {
          if (inner === ']') classInside = false;
          continue;
        }
        if (inner === '[') classInside = true;
        else if (inner === '(') depth += 1;
        else if (inner === ')' && --depth === 0) break;
      }
      continue;
    }
    out += char;
  }
  return out;
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const low = schema.minimum ?? (typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined);
  const high = schema.maximum ?? (typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : undefined);
  const min = Math.ceil(low ?? -(2 ** 31));
  const max = Math.floor(high ?? 2 ** 31 - 1);
  const bounded = fc.integer({ min, max });
  if (low !== undefined && high !== undefined) return bounded;
  // Unbounded on a side: now and then the extreme safe integers as well.
  const wide = fc.maxSafeInteger().filter((value) => value >= (low ?? -Number.MAX_SAFE_INTEGER) && value <= (high ?? Number.MAX_SAFE_INTEGER));
  return fc.oneof({ weight: 4, arbitrary: bounded }, { weight: 1, arbitrary: wide });
}

function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  return fc
    .double({
      min: min ?? -1e12,
      max: max ?? 1e12,
      noNaN: true,
      noDefaultInfinity: true,
      minExcluded: schema.exclusiveMinimum !== undefined,
      maxExcluded: schema.exclusiveMaximum !== undefined,
    })
    .map((value) => (Object.is(value, -0) ? 0 : value));
}

function objectArbitrary(schema: Schema, options: GenerationOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required: string[] = schema.required ?? [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties)) model[name] = positiveArbitrary(property, options, depth + 1);
  for (const name of required) if (!(name in model)) model[name] = fc.jsonValue({ maxDepth: 1 });
  const declared = fc.record(model, { requiredKeys: required });
  const additional = schema.additionalProperties;
  if (additional === false || depth > 2) return declared;
  const extraKey = fc.string({ minLength: 1, maxLength: 12 }).filter((key) => !(key in properties) && !FORBIDDEN_KEYS.has(key));
  if (additional && typeof additional === 'object') {
    const extras = fc.dictionary(extraKey, positiveArbitrary(additional, options, depth + 1), { maxKeys: 2 });
    return fc.tuple(declared, extras).map(([known, more]) => ({ ...more, ...known }));
  }
  if (!options.extraProperties && !additional) return declared;
  // additionalProperties absent or true: the schema allows any other property.
  const extras = fc.oneof(
    { weight: 3, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 1 }), { minKeys: 1, maxKeys: 2 }) },
  );
  return fc.tuple(declared, extras).map(([known, more]) => ({ ...more, ...known }));
}

/** Values that satisfy `schema`. */
export function positiveArbitrary(raw: Schema | boolean | undefined, options: GenerationOptions, depth = 0): fc.Arbitrary<unknown> {
  const schema = normalize(raw, options);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives)) {
    const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema;
    return fc.oneof(...alternatives.map((alternative: Schema) => positiveArbitrary({ ...rest, ...normalize(alternative, options) }, options, depth)));
  }
  const types = typesOf(schema) ?? ['string', 'integer', 'boolean', 'null', 'object'];
  return fc.oneof(...types.map((type) => typedArbitrary(type, schema, options, depth)));
}

function typedArbitrary(type: string, schema: Schema, options: GenerationOptions, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringArbitrary(schema, options);
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return fc.oneof(integerArbitrary(schema), numberArbitrary(schema));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const item = positiveArbitrary(schema.items, options, depth + 1);
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? minLength + MAX_ARRAY, minLength + MAX_ARRAY);
      return schema.uniqueItems
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
        : fc.array(item, { minLength, maxLength });
    }
    case 'object':
      return objectArbitrary(schema, options, depth);
    default:
      throw new Error(`unsupported schema type ${type}`);
  }
}

/** Where a value goes: JSON keeps types; a URL or a form field carries only strings. */
export type Carrier = 'json' | 'text';

/**
 * A way to break a schema: replace (or delete) the value at `path` of an otherwise valid
 * value. The empty path is the value itself.
 */
export interface Violation {
  /** Names the kind of violation and where, e.g. "wrong type (not integer) at body.position_seconds". */
  description: string;
  path: string[];
  /** The replacements; absent: delete the property at `path`. */
  values?: fc.Arbitrary<unknown>;
  /**
   * Better, when the valid value there is known: the replacement made from it (a valid
   * value stretched past maxLength, say, so that only its length is wrong).
   */
  fromCurrent?: fc.Arbitrary<(current: unknown) => unknown>;
}

const SAMPLE_OF_TYPE: Record<string, unknown[]> = {
  string: ['x', ''],
  integer: [7, -1],
  number: [1.5],
  boolean: [true],
  array: [[], ['x']],
  object: [{}, { x: 1 }],
};

const admits = (types: string[], value: unknown): boolean => {
  if (value === null) return types.includes('null');
  if (Array.isArray(value)) return types.includes('array');
  if (typeof value === 'number') return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
  return types.includes(typeof value);
};

const where = (label: string, path: string[]) => [label, ...path].join('.');

/**
 * The violations of `schema` that can be carried: for `text`, only what a string can
 * express (a string where an integer is expected, a value outside the enum, a pattern,
 * format or length broken); for `json`, also wrong JSON types and null. `label` names the
 * place (e.g. "query.page", "body").
 */
export function violations(raw: Schema | boolean | undefined, options: GenerationOptions, carrier: Carrier, label: string, path: string[] = []): Violation[] {
  const schema = normalize(raw, options);
  const found: Violation[] = [];
  const types = typesOf(schema);
  const text = (arbitrary: fc.Arbitrary<unknown>) => (carrier === 'text' ? arbitrary.map(toText) : arbitrary);
  const add = (description: string, values: fc.Arbitrary<unknown>) =>
    found.push({ description: `${description} at ${where(label, path)}`, path, values: text(values) });

  if (types) {
    if (carrier === 'json') {
      const wrong = Object.values(SAMPLE_OF_TYPE).flatMap((samples) => samples.filter((sample) => !admits(types, sample)));
      if (wrong.length > 0) add(`wrong type (not ${types.join('|')})`, fc.constantFrom(...wrong));
      if (!types.includes('null')) add('null for a non-nullable value', fc.constant(null));
    } else if (!types.includes('string')) {
      const wrong = ['abc', 'true', '1.5', '[]', ''].filter((candidate) => !textAdmits(types, candidate));
      if (wrong.length > 0) add(`not a ${types.join('|')}`, fc.constantFrom(...wrong));
    }
  }
  if (Array.isArray(schema.enum)) {
    const textual = schema.enum.filter((value: unknown) => typeof value === 'string');
    const outside = ['not-in-enum', ...textual.map((value: string) => `${value}x`), ...textual.map((value: string) => value.toUpperCase())].filter(
      (value) => !schema.enum.includes(value),
    );
    add(`value outside the enum [${schema.enum.join(', ')}]`, fc.constantFrom(...outside));
  }
  const stringy = !types || types.includes('string');
  if (stringy && schema.enum === undefined) {
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern, 'u');
      const candidates = fc.oneof(fc.constantFrom('', ' ', 'with space', 'UPPER', 'é', '%', '/', 'a/b', '-', 'a--b', '*', '\u0000', '<x>'), plainString(1, 12));
      add(
        `string not matching ${schema.pattern}`,
        guardedFilter(candidates, (value) => !pattern.test(value), `a string not matching ${schema.pattern}`),
      );
    }
    if (typeof schema.minLength === 'number' && schema.minLength > 0) {
      add(
        `string shorter than minLength ${schema.minLength}`,
        boundaryFirst(schema.minLength - 1, fc.integer({ min: 0, max: schema.minLength - 1 })).map((length) => 'a'.repeat(length)),
      );
    }
    if (typeof schema.maxLength === 'number') {
      // Too long, and otherwise as valid as can be: a valid value stretched (a URL by its path,
      // a patterned value by repeating its last character), so that only the length is wrong.
      const lengths = boundaryFirst(schema.maxLength + 1, fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + 200 }));
      const stretch = (valid: string, length: number) => {
        const missing = Math.max(0, length - codePointLength(valid));
        if (schema.format === 'uri') return `${valid}${valid.endsWith('/') ? '' : '/'}${'a'.repeat(missing)}`;
        return valid + ([...valid].slice(-1)[0] ?? 'a').repeat(missing);
      };
      add(
        `string longer than maxLength ${schema.maxLength}`,
        lengths.map((length) => 'a'.repeat(length)),
      );
      found[found.length - 1].fromCurrent = lengths.map(
        (length) => (current: unknown) => (typeof current === 'string' && current.length > 0 ? stretch(current, length) : 'a'.repeat(length)),
      );
    }
    const malformed: Record<string, string[]> = {
      'date-time': ['not-a-date', '2024-13-01T00:00:00Z', '2024-01-01 25:61:00', '2024-01-01', '12:00:00Z'],
      date: ['not-a-date', '2024-02-30', '2024-13-01', '20240101', '2024-1-1', '2024-01-01T00:00:00Z'],
      uuid: ['not-a-uuid', '123', '00000000-0000-0000-0000-00000000000g', '0000000000000000000000000000000000'],
      uri: ['not a uri', 'no-scheme', '://missing'],
    };
    if (malformed[schema.format]) add(`string not of format ${schema.format}`, fc.constantFrom(...malformed[schema.format]));
  }
  if (types?.some((type) => type === 'integer' || type === 'number')) {
    const integer = types.includes('integer') && !types.includes('number');
    const step = (delta: number) => (integer ? delta : delta / 7);
    const delta = boundaryFirst(1, fc.integer({ min: 1, max: 1_000_000 }));
    if (typeof schema.minimum === 'number')
      add(
        `below minimum ${schema.minimum}`,
        delta.map((by) => schema.minimum - step(by)),
      );
    if (typeof schema.maximum === 'number')
      add(
        `above maximum ${schema.maximum}`,
        delta.map((by) => schema.maximum + step(by)),
      );
    if (typeof schema.exclusiveMinimum === 'number') add(`not above exclusiveMinimum ${schema.exclusiveMinimum}`, fc.constant(schema.exclusiveMinimum));
    if (typeof schema.exclusiveMaximum === 'number') add(`not below exclusiveMaximum ${schema.exclusiveMaximum}`, fc.constant(schema.exclusiveMaximum));
    if (integer) add('non-integer number', fc.constantFrom(0.5, 1.25, -2.5));
  }
  if (carrier === 'json' && types?.includes('array') && path.length < 4) {
    const item = positiveArbitrary(schema.items, options, path.length + 1);
    if (typeof schema.minItems === 'number' && schema.minItems > 0) {
      add(`fewer items than minItems ${schema.minItems}`, fc.array(item, { maxLength: schema.minItems - 1 }));
    }
    if (typeof schema.maxItems === 'number') {
      add(`more items than maxItems ${schema.maxItems}`, fc.array(item, { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 3 }));
    }
    for (const inner of violations(schema.items, options, carrier, `${where(label, path)}[]`)) {
      if (!inner.values) continue;
      found.push({
        description: inner.description,
        path,
        values: fc.tuple(fc.array(item, { maxLength: 2 }), inner.values).map(([valid, invalid]) => [...valid, invalid]),
      });
    }
  }
  if (types?.includes('object') && path.length < 4) found.push(...propertyViolations(schema, options, carrier, label, path));
  return found;
}

/** The violations inside an object: a required property missing, an unknown one, a property's own. */
export function propertyViolations(
  raw: Schema | boolean | undefined,
  options: GenerationOptions,
  carrier: Carrier,
  label: string,
  path: string[] = [],
): Violation[] {
  const schema = normalize(raw, options);
  const found: Violation[] = [];
  for (const name of schema.required ?? []) {
    found.push({ description: `required property ${name} missing at ${where(label, path)}`, path: [...path, name] });
  }
  if (schema.additionalProperties === false) {
    found.push({
      description: `property not in the schema (additionalProperties: false) at ${where(label, path)}`,
      path: [...path, 'unexpected_property'],
      values: fc.constant('x'),
    });
  }
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    found.push(...violations(property, options, carrier, label, [...path, name]));
  }
  return found;
}

/** The value just past a limit, most of the time; else anything further. */
const boundaryFirst = (boundary: number, further: fc.Arbitrary<number>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(boundary) }, { weight: 1, arbitrary: further });

/** A copy of `value` with the value at `path` replaced, or deleted when `replacement` is absent. */
export function withViolation(value: unknown, path: string[], replacement: { value: unknown } | undefined): unknown {
  if (path.length === 0) return replacement?.value;
  const [head, ...rest] = path;
  const object: Record<string, unknown> = value !== null && typeof value === 'object' && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
  if (rest.length === 0 && !replacement) delete object[head];
  else object[head] = withViolation(object[head], rest, replacement);
  return object;
}

/** How a value travels as text (a URL parameter, a form field). */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const INTEGER_TEXT = /^-?(0|[1-9][0-9]*)$/;
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function textAdmits(types: string[], text: string): boolean {
  return types.some((type) =>
    type === 'integer'
      ? INTEGER_TEXT.test(text)
      : type === 'number'
        ? NUMBER_TEXT.test(text)
        : type === 'boolean'
          ? text === 'true' || text === 'false'
          : type === 'string',
  );
}

/**
 * The value a text-carried string stands for under `schema`, for validation: "12" is the
 * integer 12 where an integer is expected, and stays a string (so fails) where it is not one.
 */
export function fromText(raw: Schema | boolean | undefined, text: string, options: Pick<GenerationOptions, 'resolveRef'>): unknown {
  const schema = normalize(raw, options);
  const types = typesOf(schema) ?? ['string'];
  if (types.includes('string')) return text;
  if (types.includes('integer') && INTEGER_TEXT.test(text)) return Number(text);
  if (types.includes('number') && NUMBER_TEXT.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}
