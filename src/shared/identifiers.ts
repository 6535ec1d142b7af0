/**
 * DECISIONS 19: the partner's subscriber identifiers and our novel slugs. Pure rules, so
 * that domain code (manifests, activity imports, media keys) can use them; the HTTP forms
 * (pipes, DTO decorators) are in `shared/http/identifiers.ts`.
 */
// "." and ".." alone are refused: as a path segment, URL parsers resolve them to another path.
export const SUBSCRIBER_ID_PATTERN = /^(?!\.\.?$)[A-Za-z0-9._:@-]{1,128}$/;
export const SUBSCRIBER_ID_RULE = '1 to 128 characters of A-Z a-z 0-9 . _ : @ -, other than "." and ".." alone';
export const NOVEL_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const NOVEL_ID_RULE = 'a lowercase slug (a-z, 0-9 and single hyphens) of 1 to 100 characters';

export const isNovelId = (value: string) => value.length <= 100 && NOVEL_ID_PATTERN.test(value);
