import { type ArgumentMetadata, type PipeTransform, ValidationPipe, type ValidationError, type ValidationPipeOptions } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ApiError } from '../errors/api-error.js';
import { byObject } from '../memo.js';
import { ValidationPlan } from './validation-plan.js';

/**
 * Nest's pipe converts a path parameter declared `number` with `+value` before the
 * parameter's own pipe runs, so that pipe would see 16 for "0x10", 1000 for "1e3" and 1
 * for " 1". Path parameters are left as sent: each one's own pipe checks the text.
 *
 * A body or query that its DTO's ValidationPlan accepts skips the libraries' per-call
 * work; anything else, and every failure, goes through Nest's pipe as before.
 */
class PlannedValidationPipe extends ValidationPipe {
  /** Each DTO class's plan, read from the libraries' metadata once. */
  private readonly plans = byObject('http.validation-plans', (dto: new () => object) => ({ plan: ValidationPlan.of(dto) }));

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') refuseNullFields(value);
    const planned = metadata.type === 'body' || metadata.type === 'query' ? this.planOf(metadata.metatype)?.accept(value) : undefined;
    return planned ?? super.transform(value, metadata);
  }

  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }

  private planOf(metatype: ArgumentMetadata['metatype']): ValidationPlan | undefined {
    if (!metatype || !this.toValidate({ type: 'body', metatype })) return undefined;
    return this.plans.get(metatype as new () => object).plan;
  }
}

/**
 * No request body field is nullable (DECISIONS 5): `null` is refused in so many words,
 * rather than with the message of whichever rule it happens to break first.
 */
function refuseNullFields(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const nulls = Object.keys(body).filter((key) => (body as Record<string, unknown>)[key] === null);
  if (nulls.length > 0) throw new ApiError('invalid_request', nulls.map((key) => `${key} must not be null: leave it out instead`).join('; '));
}

/**
 * Validates bodies and queries against their DTO classes. A failure is a 400
 * `invalid_request` whose description names every offending field. Unknown fields and
 * unknown query parameters are refused too: a misspelt `positon_seconds` must fail loudly
 * rather than be silently ignored.
 */
export function createValidationPipe(): ValidationPipe {
  return new PlannedValidationPipe(VALIDATION_OPTIONS);
}

/** The options ValidationPlan assumes: transformed instances, unknown fields refused. */
export const VALIDATION_OPTIONS: ValidationPipeOptions = {
  transform: true,
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  stopAtFirstError: true,
  validationError: { target: false, value: false },
  exceptionFactory: (errors) => new ApiError('invalid_request', describeErrors(errors)),
};

export function describeErrors(errors: ValidationError[], parent = ''): string {
  return errors
    .flatMap((error) => {
      const path = parent ? `${parent}.${error.property}` : error.property;
      const own = Object.values(error.constraints ?? {}).map((message) =>
        message.startsWith(error.property) ? path + message.slice(error.property.length) : `${path}: ${message}`,
      );
      return [...own, ...(error.children?.length ? [describeErrors(error.children, path)] : [])];
    })
    .join('; ');
}

/** A pipe that checks one path or query value against a pattern before any query runs. */
export function matchingPipe(name: string, pattern: RegExp, rule: string): PipeTransform<unknown, string> {
  return {
    transform(value: unknown): string {
      if (typeof value !== 'string' || !pattern.test(value)) {
        throw new ApiError('invalid_request', `${name} must be ${rule}.`);
      }
      return value;
    },
  };
}

/**
 * An integer query parameter. Query values arrive as text, and `@Type(() => Number)` would
 * read "1e2" as 100, "0x10" as 16 and " 2" as 2 (and "1e21" as a number no SQL OFFSET
 * takes); only decimal digits are converted here, anything else is left for `@IsInt` to refuse.
 */
export const IntegerQueryParam = () => Transform(({ value }) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value));
