import { ValidateIf } from 'class-validator';

/**
 * An optional field (DECISIONS 5): left out, its rules are skipped; sent, they apply, so
 * `null` fails them like any other wrong value. class-validator's IsOptional skips null
 * as well, so null meant "absent" to one handler and "present" to another. (The
 * validation pipe refuses a null body field first, with words of its own.)
 */
export const MayBeOmitted = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
