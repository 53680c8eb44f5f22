import { writeCanonicalJson } from '@rea/evidence';

import { ENVELOPE_RESERVE_BYTES } from '@rea/provider-kit';

class BudgetExceeded extends Error {
  constructor() {
    super('budget exceeded');
  }
}

/** Bytes that `chunk` adds when it is itself embedded in a JSON string (quotes, backslashes, controls). */
function escapeOverhead(chunk: string): number {
  let extra = 0;
  for (let i = 0; i < chunk.length; i += 1) {
    const c = chunk.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) extra += 1;
    else if (c < 0x20) extra += 5;
  }
  return extra;
}

/** What a response costs on the wire. */
export interface ResponseCost {
  /** UTF-8 bytes of the canonical JSON of the value (the structured content). */
  structured: number;
  /** UTF-8 bytes of the same JSON embedded as a JSON string (the text content). */
  text: number;
  /** `structured + text`, or at least the budget when counting stopped early. */
  total: number;
  /** True when the value fits the budget. */
  fits: boolean;
}

/**
 * Measures what sending `value` as both structured content and JSON text would cost, without building
 * the document: canonical JSON is produced in bounded chunks into a counting sink, which stops as soon
 * as the running total passes `budget`. `withStructured: false` counts the text representation only
 * (tool errors carry no structured content).
 */
export function measureResponse(value: unknown, budget: number, withStructured = true): ResponseCost {
  let structured = 0;
  let text = 2; // the quotes around the text representation
  try {
    writeCanonicalJson(value, (chunk) => {
      const bytes = Buffer.byteLength(chunk, 'utf8');
      structured += bytes;
      text += bytes + escapeOverhead(chunk);
      if ((withStructured ? structured : 0) + text > budget) throw new BudgetExceeded();
    });
  } catch (error) {
    if (error instanceof BudgetExceeded) {
      return { structured, text, total: Math.max(budget + 1, (withStructured ? structured : 0) + text), fits: false };
    }
    throw error;
  }
  const total = (withStructured ? structured : 0) + text;
  return { structured, text, total, fits: total <= budget };
}

/** The byte budget for text + structured content: the configured maximum less the envelope reserve. */
export function contentBudget(maxResponseBytes: number): number {
  return maxResponseBytes - ENVELOPE_RESERVE_BYTES;
}
