/**
 * W3C Trace Context: `traceparent: VERSION-TRACE_ID-PARENT_ID-FLAGS`, lowercase hex. A
 * caller's trace id lets its logs and ours be joined; a malformed value is ignored (the
 * specification says to restart the trace rather than refuse the request).
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

export interface TraceParent {
  traceId: string;
  parentId: string;
}

export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  // Version ff is invalid; version 00 has exactly four fields; ids of zeros are invalid.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  return { traceId, parentId };
}
