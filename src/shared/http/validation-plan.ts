import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';
import { TransformationType } from 'class-transformer';
import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';

type Dto = new () => object;
type Transform = (params: { value: unknown; key: string; obj: Record<string, unknown>; type: TransformationType; options: object }) => unknown;

interface Constraint {
  validate(value: unknown, args: ValidationArguments): unknown;
}

/** One declared property of a DTO: its class-transformer transforms and its class-validator rules, in their order. */
interface PropertyPlan {
  name: string;
  transforms: Transform[];
  /** ValidateIf / IsOptional: when one says no, the property's other rules are skipped. */
  conditions: ((object: object, value: unknown) => boolean)[];
  /** IsDefined first, then the other rules, as class-validator runs them. */
  rules: { metadata: ValidationMetadata; constraints: Constraint[] }[];
}

/**
 * What class-transformer and class-validator would do with a DTO, read once from their own
 * metadata, for the common case only: a plain object of declared properties holding strings,
 * numbers or booleans. `accept` answers the DTO instance the validation pipe would answer, or
 * undefined whenever it is not certain (any rule fails, an unknown or non-primitive field, an
 * asynchronous rule): the pipe then runs in full and makes the error. So a request that fails
 * validation gets the same answer as before, and one that passes skips the libraries' per-call
 * metadata walking (grouping, filtering, error objects), a third of a hot request's own work.
 * The property test `validation-plan.spec.ts` holds each route DTO to the pipe.
 */
export class ValidationPlan {
  private constructor(
    private readonly dto: Dto,
    private readonly properties: Map<string, PropertyPlan>,
  ) {}

  /** The plan of `dto`, or undefined when it uses a feature the plan does not model. */
  static of(dto: Dto): ValidationPlan | undefined {
    const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false);
    // No rules at all: forbidUnknownValues refuses every value (the pipe says why).
    if (metadatas.length === 0 || !transformsOnlyByTransformFunctions(dto, metadatas)) return undefined;
    const properties = new Map<string, PropertyPlan>();
    for (const metadata of metadatas) {
      if (metadata.each || metadata.always || metadata.groups?.length) return undefined;
      const property = properties.get(metadata.propertyName) ?? planProperty(dto, metadata.propertyName);
      properties.set(property.name, property);
      if (metadata.type === ValidationTypes.WHITELIST) continue;
      if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        property.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
        continue;
      }
      if (metadata.type !== ValidationTypes.CUSTOM_VALIDATION && metadata.type !== ValidationTypes.IS_DEFINED) return undefined;
      const constraints = getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls);
      if (constraints.some((constraint) => constraint.async)) return undefined;
      const rule = { metadata, constraints: constraints.map((constraint) => constraint.instance as Constraint) };
      if (metadata.type === ValidationTypes.IS_DEFINED) property.rules.unshift(rule);
      else property.rules.push(rule);
    }
    // A field the class itself sets but declares no rule for: whitelisting refuses every value.
    if (Object.keys(new dto()).some((key) => !properties.has(key))) return undefined;
    return new ValidationPlan(dto, properties);
  }

  /** The DTO instance for `value`, or undefined when the full pipe must decide. */
  accept(value: unknown): object | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) return undefined;
    const plain = value as Record<string, unknown>;
    const entity = new this.dto() as Record<string, unknown>;
    for (const key of Object.keys(plain)) {
      const property = this.properties.get(key);
      const field = plain[key];
      if (!property || !isPrimitive(field)) return undefined;
      let transformed: unknown = field;
      for (const transform of property.transforms) {
        transformed = transform({ value: transformed, key, obj: plain, type: TransformationType.PLAIN_TO_CLASS, options: {} });
      }
      entity[key] = transformed;
    }
    for (const property of this.properties.values()) {
      if (!this.satisfies(entity, property)) return undefined;
    }
    return entity;
  }

  private satisfies(entity: Record<string, unknown>, property: PropertyPlan): boolean {
    const value = entity[property.name];
    if (!property.conditions.every((condition) => condition(entity, value))) return true;
    for (const { metadata, constraints } of property.rules) {
      if (metadata.validateIf && !metadata.validateIf(entity, value)) continue;
      const args: ValidationArguments = { targetName: this.dto.name, property: property.name, object: entity, value, constraints: metadata.constraints };
      for (const constraint of constraints) {
        const valid = constraint.validate(value, args);
        if (valid !== true) return false;
      }
    }
    return true;
  }
}

const isPrimitive = (value: unknown) => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

function planProperty(dto: Dto, name: string): PropertyPlan {
  const transforms = defaultMetadataStorage
    .findTransformMetadatas(dto, name, TransformationType.PLAIN_TO_CLASS)
    .filter((metadata) => !metadata.options?.groups?.length)
    .map((metadata) => metadata.transformFn as Transform);
  return { name, transforms, conditions: [], rules: [] };
}

/** class-transformer features other than @Transform (types, expose/exclude, strategies) change what the plan would build. */
function transformsOnlyByTransformFunctions(dto: Dto, metadatas: readonly ValidationMetadata[]): boolean {
  return (
    defaultMetadataStorage.getStrategy(dto) === 'none' &&
    defaultMetadataStorage.getExposedMetadatas(dto).length === 0 &&
    defaultMetadataStorage.getExcludedMetadatas(dto).length === 0 &&
    metadatas.every((metadata) => defaultMetadataStorage.findTypeMetadata(dto, metadata.propertyName) === undefined)
  );
}
