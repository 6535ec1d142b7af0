import type { PipeTransform } from '@nestjs/common';
import { Matches } from 'class-validator';
import { ApiError, invalidRequest } from '../errors/api-error.js';
import { NOVEL_ID_PATTERN, NOVEL_ID_RULE, SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE } from '../identifiers.js';
import { matchingPipe } from './validation.js';

/** The HTTP forms of the identifier rules of `shared/identifiers.ts`: path pipes and DTO decorators. */

const novelIdPattern = new RegExp(`^(?=.{1,100}$)${NOVEL_ID_PATTERN.source.slice(1)}`);

/**
 * Every pipe that reads a subscriber id from a path: the request-log test finds each route
 * parameter that holds one by its pipe, and checks the log names it only by its hash.
 */
export const SUBSCRIBER_ID_PIPES = new WeakSet<object>();

export const subscriberIdPipe = (name = 'subscriber_id') => {
  const pipe = matchingPipe(name, SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE);
  SUBSCRIBER_ID_PIPES.add(pipe);
  return pipe;
};
export const novelIdPipe = (name = 'novel id') => matchingPipe(name, novelIdPattern, NOVEL_ID_RULE);

/** Class-validator forms, for DTO fields. */
export const IsSubscriberId = () => Matches(SUBSCRIBER_ID_PATTERN, { message: `$property must be ${SUBSCRIBER_ID_RULE}` });
export const IsNovelId = () => Matches(novelIdPattern, { message: `$property must be ${NOVEL_ID_RULE}` });

const MAX_CHAPTER_NUMBER = 100_000;

/**
 * A chapter number in a path: decimal digits for an integer from 1 to 100 000 (contract 8),
 * else 400 invalid_request before the handler runs. It receives the text as sent (the
 * global validation pipe leaves path parameters alone), so "0x10", "1e3" and " 1" are
 * refused, not read as numbers.
 */
export const chapterNumberPipe = (): PipeTransform<unknown, number> => ({
  transform(value: unknown): number {
    const number = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 0;
    if (number < 1 || number > MAX_CHAPTER_NUMBER) throw invalidRequest(`chapter number must be an integer from 1 to ${MAX_CHAPTER_NUMBER}.`);
    return number;
  },
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A resource id in a path: one that is not a UUID names nothing, 404 like any other unknown id. */
export const uuidPipe = (what: string): PipeTransform<string, string> => ({
  transform(value: string): string {
    if (!UUID.test(value)) throw new ApiError('not_found', `No ${what} ${value}.`);
    return value.toLowerCase();
  },
});
