import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Length, Max, Min } from 'class-validator';
import { IsNovelId } from '../../../shared/http/identifiers.js';
import { NOVEL_ID_PATTERN } from '../../../shared/identifiers.js';
import { IntegerQueryParam } from '../../../shared/http/validation.js';
import type { Category, Novel } from '../domain/catalog.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

export class CategoryDto {
  @ApiProperty({ description: 'Slug; the category_id filter of GET /novels.', example: 'romance' }) id: string;
  @ApiProperty({ example: 'Romance' }) name: string;
  @ApiProperty({ type: 'integer', example: 1 }) sort_order: number;
}

export class CategoryListDto {
  @ApiProperty({ type: [CategoryDto], description: 'Ordered by sort_order.' }) data: CategoryDto[];
}

/** Far beyond any catalog (100 million novels at 100 a page), and the offset stays an ordinary integer. */
const MAX_PAGE = 1_000_000;
const PAGE_RULE = `page must be an integer from 1 to ${MAX_PAGE}`;

export class NovelQueryDto {
  @ApiPropertyOptional({
    description: 'Filter by category; valid values come from GET /categories.',
    example: 'romance',
    pattern: NOVEL_ID_PATTERN.source,
    minLength: 1,
    maxLength: 100,
  })
  @MayBeOmitted()
  @IsNovelId()
  category_id?: string;

  @ApiPropertyOptional({ description: 'Filter by editorial tag.', example: 'drama', minLength: 1, maxLength: 50 })
  @MayBeOmitted()
  @Length(1, 50, { message: 'tag must be 1 to 50 characters' })
  tag?: string;

  @ApiPropertyOptional({ description: 'Filter by novels with real recorded narration (every chapter ready).', enum: ['true', 'false'] })
  @MayBeOmitted()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'has_audio must be true or false' })
  has_audio?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1 })
  @MayBeOmitted()
  @IntegerQueryParam()
  @IsInt({ message: PAGE_RULE })
  @Min(1, { message: PAGE_RULE })
  @Max(MAX_PAGE, { message: PAGE_RULE })
  page: number = 1;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @MayBeOmitted()
  @IntegerQueryParam()
  @IsInt({ message: 'page_size must be an integer from 1 to 100' })
  @Min(1, { message: 'page_size must be an integer from 1 to 100' })
  @Max(100, { message: 'page_size must be an integer from 1 to 100' })
  page_size: number = 20;
}

/** Catalog entry [ext shape] (DECISIONS 9). */
export class CatalogEntryDto {
  @ApiProperty({ description: 'Novel slug.', example: 'the-heir' }) id: string;
  @ApiProperty() title: string;
  @ApiProperty() synopsis: string;
  @ApiProperty() author: string;
  @ApiProperty({ example: 'romance' }) category_id: string;
  @ApiProperty({ type: [String], example: ['drama'] }) tags: string[];
  @ApiProperty({ example: 'pt-BR' }) language: string;
  @ApiProperty({ type: String, nullable: true, format: 'uri' }) cover_url: string | null;
  @ApiProperty({ type: 'integer' }) total_chapters: number;
  @ApiProperty({ description: "true when every chapter's audio is ready." }) has_audio: boolean;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class NovelPageDto {
  @ApiProperty({ type: [CatalogEntryDto], description: 'Ordered by title, then id.' }) data: CatalogEntryDto[];
  @ApiProperty({ type: 'integer' }) page: number;
  @ApiProperty({ type: 'integer' }) page_size: number;
  @ApiProperty({ type: 'integer', description: 'Novels matching the filters, over all pages.' }) total: number;
}

export const categoryDto = (category: Category): CategoryDto => ({ id: category.id, name: category.name, sort_order: category.sortOrder });

export const catalogEntryDto = (novel: Novel): CatalogEntryDto => ({
  id: novel.id,
  title: novel.title,
  synopsis: novel.synopsis,
  author: novel.author,
  category_id: novel.categoryId,
  tags: novel.tags,
  language: novel.language,
  cover_url: novel.coverUrl,
  total_chapters: novel.totalChapters,
  has_audio: novel.hasAudio,
  updated_at: novel.updatedAt.toISOString(),
});
