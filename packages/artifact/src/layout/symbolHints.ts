import { CHECK_EVERY } from './cooperative.js';
import type { Work } from './cooperative.js';
import type { LayoutSymbol } from './types.js';

const CANARY = new Set(['__stack_chk_fail', '__stack_chk_guard', '__stack_chk_fail_local', '__intel_security_cookie']);
const FORTIFIED = /^__[a-z0-9_]+_chk$/;

/** True when a symbol table references a stack-protector helper or guard. */
export function hasCanary(symbols: readonly LayoutSymbol[], prefix = ''): boolean {
  const lead = `${prefix}__`;
  for (const s of symbols) {
    // Only names that start with the prefix and "__" can match; skip the rest without slicing.
    if (s.name.startsWith(lead) && CANARY.has(s.name.slice(prefix.length))) return true;
  }
  return false;
}

/** True when a symbol table references a FORTIFY_SOURCE checked libc function (`__memcpy_chk`, …). */
export function hasFortify(symbols: readonly LayoutSymbol[], prefix = ''): boolean {
  const lead = `${prefix}__`;
  for (const s of symbols) {
    if (!s.name.startsWith(lead) || !s.name.endsWith('_chk')) continue;
    const name = s.name.slice(prefix.length);
    if (FORTIFIED.test(name) && !CANARY.has(name)) return true;
  }
  return false;
}

/**
 * {@link hasCanary} and {@link hasFortify} in one pass, as work for a driver of ./cooperative.js: a
 * checkpoint every {@link CHECK_EVERY} symbols, so that a table of hundreds of thousands of symbols
 * does not hold the event loop. Stops once both are found.
 */
export function* symbolHints(
  symbols: readonly LayoutSymbol[],
  prefix = '',
): Work<{ canary: boolean; fortify: boolean }> {
  const lead = `${prefix}__`;
  let canary = false;
  let fortify = false;
  for (let i = 0; i < symbols.length && !(canary && fortify); i += 1) {
    if (i % CHECK_EVERY === CHECK_EVERY - 1) yield;
    const full = symbols[i]!.name;
    if (!full.startsWith(lead)) continue;
    const name = full.slice(prefix.length);
    if (CANARY.has(name)) canary = true;
    else if (!fortify && full.endsWith('_chk') && FORTIFIED.test(name)) fortify = true;
  }
  return { canary, fortify };
}
