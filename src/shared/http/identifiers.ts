import { Matches } from 'class-validator';
import { matchingPipe } from './validation.js';

/** DECISIONS 19: the partner's subscriber identifiers and our novel slugs. */
export const SUBSCRIBER_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;
export const SUBSCRIBER_ID_RULE = '1 to 128 characters of A-Z a-z 0-9 . _ : @ -';
export const NOVEL_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const NOVEL_ID_RULE = 'a lowercase slug (a-z, 0-9 and single hyphens) of 1 to 100 characters';

export const isNovelId = (value: string) => value.length <= 100 && NOVEL_ID_PATTERN.test(value);

const novelIdPattern = new RegExp(`^(?=.{1,100}$)${NOVEL_ID_PATTERN.source.slice(1)}`);

export const subscriberIdPipe = (name = 'subscriber_id') =>
  matchingPipe(name, SUBSCRIBER_ID_PATTERN, SUBSCRIBER_ID_RULE);
export const novelIdPipe = (name = 'novel id') => matchingPipe(name, novelIdPattern, NOVEL_ID_RULE);

/** Class-validator forms, for DTO fields. */
export const IsSubscriberId = () =>
  Matches(SUBSCRIBER_ID_PATTERN, { message: `$property must be ${SUBSCRIBER_ID_RULE}` });
export const IsNovelId = () => Matches(novelIdPattern, { message: `$property must be ${NOVEL_ID_RULE}` });
