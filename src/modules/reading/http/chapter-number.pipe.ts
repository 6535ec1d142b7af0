import type { PipeTransform } from '@nestjs/common';
import { invalidChapterNumber, parseChapterNumber } from '../../../shared/http/identifiers.js';

/** A chapter number in a path, else 400 invalid_request before the handler runs. */
export const chapterNumberPipe = (): PipeTransform<unknown, number> => ({
  transform(value: unknown): number {
    const number = parseChapterNumber(value);
    if (number === null) throw invalidChapterNumber();
    return number;
  },
});
