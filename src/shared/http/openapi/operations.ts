import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** What the access decorators leave on an operation (`x-required-scopes`, `x-extension`). */
export type Operation = OperationObject & { 'x-required-scopes'?: { anyOf: string[] }; 'x-extension'?: boolean };

export interface PathOperation {
  path: string;
  method: string;
  operation: Operation;
}

/** Every operation of the document, in document order. */
export function operationsOf(document: OpenAPIObject): PathOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Operation })),
  );
}

/** A protected operation: its access rule lists scopes (none listed: any valid token). */
export const isProtected = (operation: Operation) => operation['x-required-scopes'] !== undefined;
