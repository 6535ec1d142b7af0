import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import { operationsOf } from './operations.js';

type Schema = Record<string, unknown>;

/** What one class-validator rule says in JSON Schema, on the property's own schema. */
const RULES: Record<string, (constraints: unknown[], schema: Schema) => void> = {
  matches: ([pattern], schema) => {
    if (pattern instanceof RegExp && !pattern.flags) schema.pattern = pattern.source;
  },
  isLength: ([min, max], schema) => Object.assign(schema, { minLength: min, ...(max !== undefined && { maxLength: max }) }),
  minLength: ([min], schema) => Object.assign(schema, { minLength: min }),
  maxLength: ([max], schema) => Object.assign(schema, { maxLength: max }),
  min: ([min], schema) => Object.assign(schema, { minimum: min }),
  max: ([max], schema) => Object.assign(schema, { maximum: max }),
  isInt: (_, schema) => Object.assign(schema, { type: 'integer' }),
  isIn: ([values], schema) => {
    if (schema.type === 'array') schema.items = { ...(schema.items as Schema), enum: values };
    else schema.enum = values;
  },
  arrayNotEmpty: (_, schema) => Object.assign(schema, { minItems: 1 }),
  arrayMaxSize: ([max], schema) => Object.assign(schema, { maxItems: max }),
};

/**
 * Request bodies as the service enforces them: each body's schema gets the
 * rules its DTO's class-validator decorators apply (patterns, lengths, bounds, enums,
 * array sizes) and `additionalProperties: false`, since the validation pipe refuses
 * unknown fields. Read from the same metadata the pipe runs, so the document cannot say
 * less, or other, than what is checked.
 */
export function documentRequestBodies(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const rulesByDto = new Map<string, ValidationMetadata[]>();
  for (const [target, metadatas] of (getMetadataStorage() as unknown as { validationMetadatas: Map<{ name: string }, ValidationMetadata[]> })
    .validationMetadatas) {
    rulesByDto.set(target.name, metadatas);
  }
  for (const name of requestBodySchemaNames(document)) {
    const schema = schemas[name];
    const rules = rulesByDto.get(name);
    if (!schema || !rules) continue;
    schema.additionalProperties = false;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const rule of rules) {
      const property = properties[rule.propertyName];
      const apply = rule.type === ValidationTypes.CUSTOM_VALIDATION && rule.name ? RULES[rule.name] : undefined;
      if (property && apply) apply(rule.constraints ?? [], property);
    }
  }
}

/**
 * A body whose schema has sandbox-only properties (`x-sandbox-only`) gets, on the live
 * mount (/v1), a schema of its own without them: the live service refuses them, so the
 * live document must not offer them.
 */
export function documentLiveBodies(document: OpenAPIObject): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  for (const { path, operation } of operationsOf(document)) {
    if (!path.startsWith('/v1/')) continue;
    const json = (operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content?.['application/json'];
    const name = json?.schema?.$ref?.match(/^#\/components\/schemas\/(.+)$/)?.[1];
    const schema = name ? schemas[name] : undefined;
    const properties = (schema?.properties ?? {}) as Record<string, Schema>;
    const sandboxOnly = Object.keys(properties).filter((key) => properties[key]['x-sandbox-only']);
    if (!name || !schema || sandboxOnly.length === 0) continue;
    const live = `${name.replace(/Dto$/, '')}LiveDto`;
    schemas[live] ??= {
      ...schema,
      properties: Object.fromEntries(Object.entries(properties).filter(([key]) => !sandboxOnly.includes(key))),
      description: `${name} on the live mount, without its sandbox-only fields (${sandboxOnly.join(', ')}).`,
    };
    json!.schema = { $ref: `#/components/schemas/${live}` };
  }
}

/** The component schemas that request bodies reference, by name. */
function requestBodySchemaNames(document: OpenAPIObject): Set<string> {
  const names = new Set<string>();
  for (const { operation } of operationsOf(document)) {
    const content = (operation.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined)?.content ?? {};
    for (const { schema } of Object.values(content)) {
      const ref = schema?.$ref?.match(/^#\/components\/schemas\/(.+)$/)?.[1];
      if (ref) names.add(ref);
    }
  }
  return names;
}
