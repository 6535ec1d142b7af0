import type { PipeTransform } from '@nestjs/common';
import { invalidRequest } from '../../../shared/errors/api-error.js';

const MAX_CHAPTER = 100_000;

/**
 * A chapter number in a path: decimal digits for an integer of at least 1 (contract 8),
 * else 400 invalid_request. It receives the text as sent (the global validation pipe
 * leaves path parameters alone), so "0x10", "1e3" and " 1" are refused, not read as numbers.
 */
export const chapterNumberPipe = (): PipeTransform<unknown, number> => ({
  transform(value: unknown): number {
    const number = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
    if (!Number.isInteger(number) || number < 1 || number > MAX_CHAPTER) {
      throw invalidRequest(`chapter number must be an integer from 1 to ${MAX_CHAPTER}.`);
    }
    return number;
  },
});
