import type { PipeTransform } from '@nestjs/common';
import { invalidRequest } from '../../../shared/errors/api-error.js';

/** A chapter number in a path: an integer of at least 1 (contract 8), else 400 invalid_request. */
export const chapterNumberPipe = (): PipeTransform<unknown, number> => ({
  transform(value: unknown): number {
    if (typeof value !== 'string' || !/^[1-9]\d{0,8}$/.test(value)) throw invalidRequest('chapter number must be an integer of at least 1.');
    return Number(value);
  },
});
