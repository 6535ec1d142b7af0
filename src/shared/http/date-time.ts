import { applyDecorators } from '@nestjs/common';
import { IsISO8601, IsString, Matches, ValidateBy } from 'class-validator';

/**
 * An RFC 3339 instant with its time zone, from 1970 on: a partner's clock reading, never a
 * local time that would need guessing, nor a year PostgreSQL refuses or mis-stores.
 */
const ISO_INSTANT = /^(19[7-9]\d|[2-9]\d{3})-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * The last instant an RFC 3339 date can name (a four-digit year). "9999-12-31T23:00:00-05:00"
 * matches the pattern yet is in year 10000 in UTC, which answers would have to write as
 * "+010000-…": it is refused.
 */
const LAST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

export const isoInstantRule = (field: string) =>
  `${field} must be an ISO 8601 date-time with a time zone from 1970 to 9999-12-31T23:59:59Z, e.g. 2026-03-10T12:00:00Z`;

/** Class-validator form, for DTO fields holding an instant. */
export const IsIsoInstant = (field: string) =>
  applyDecorators(
    IsString({ message: isoInstantRule(field) }),
    Matches(ISO_INSTANT, { message: isoInstantRule(field) }),
    IsISO8601({ strict: true, strictSeparator: true }, { message: isoInstantRule(field) }),
    ValidateBy(
      { name: 'isInstantBeforeYear10000', validator: { validate: (value) => Date.parse(String(value)) <= LAST_INSTANT_MS } },
      { message: isoInstantRule(field) },
    ),
  );
