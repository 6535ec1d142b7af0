import type { OpenAPIObject, ParameterObject } from '@nestjs/swagger';
import { NOVEL_ID_PATTERN, NOVEL_ID_RULE, SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE } from '../../identifiers.js';
import { operationsOf } from './operations.js';

type Schema = Record<string, unknown>;

const SUBSCRIBER_ID: Schema = { type: 'string', pattern: SUBSCRIBER_ID_PATTERN.source, minLength: 1, maxLength: 128, description: SUBSCRIBER_ID_RULE };
const NOVEL_ID: Schema = { type: 'string', pattern: NOVEL_ID_PATTERN.source, minLength: 1, maxLength: 100, description: NOVEL_ID_RULE };
const UUID: Schema = { type: 'string', format: 'uuid' };
const CHAPTER_NUMBER: Schema = { type: 'integer', minimum: 1, maximum: 100_000 };

/**
 * The schema the server enforces for a parameter (the pipes of identifiers.ts and the
 * UUID pipe of the webhooks), by its name and, for `id`, by the resource it names.
 */
function enforcedSchema(path: string, parameter: ParameterObject): Schema | undefined {
  switch (parameter.name) {
    case 'subscriber_id':
      return SUBSCRIBER_ID;
    case 'novel_id':
      return NOVEL_ID;
    case 'chapterNumber':
      return CHAPTER_NUMBER;
    case 'event_id':
      return UUID;
    case 'page':
    case 'page_size':
    case 'limit':
      return { type: 'integer' };
    case 'id':
      if (/\/subscribers?\/\{id\}/.test(path)) return SUBSCRIBER_ID;
      if (/\/novels\/\{id\}/.test(path)) return NOVEL_ID;
      if (/\/webhook-endpoints\/\{id\}/.test(path)) return UUID;
      return undefined;
    default:
      return undefined;
  }
}

/**
 * Gives parameters the patterns, lengths and integer types the server enforces, and keeps
 * query examples out of "Try it out": Swagger UI pre-fills a parameter with its example,
 * which for optional filters (category_id, tag) would narrow every first call.
 */
export function constrainParameters(document: OpenAPIObject): void {
  for (const { path, operation } of operationsOf(document)) {
    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      const enforced = enforcedSchema(path, parameter);
      if (enforced) {
        const { description, ...schema } = enforced;
        parameter.schema = { ...(parameter.schema as Schema), ...schema };
        if (description && !parameter.description) parameter.description = String(description);
      }
      if (parameter.in === 'query') moveExampleToDescription(parameter);
    }
  }
}

function moveExampleToDescription(parameter: ParameterObject): void {
  const schema = parameter.schema as Schema | undefined;
  const example = parameter.example ?? schema?.example;
  if (example === undefined) return;
  delete parameter.example;
  if (schema) delete schema.example;
  parameter.description = [parameter.description, `For example \`${String(example)}\`.`].filter(Boolean).join(' ');
}
