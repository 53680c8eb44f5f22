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
