import type { PipeTransform } from '@nestjs/common';
import { invalidRequest } from '../../../shared/errors/api-error.js';

const MAX_CHAPTER = 100_000;

/**
 * A chapter number in a path: an integer of at least 1 (contract 8), else 400
 * invalid_request. The global validation pipe may already have turned the text into a
 * number (NaN for "abc"), so both forms are checked.
 */
export const chapterNumberPipe = (): PipeTransform<unknown, number> => ({
  transform(value: unknown): number {
    const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > MAX_CHAPTER) {
      throw invalidRequest('chapter number must be an integer of at least 1.');
    }
    return number;
  },
});
