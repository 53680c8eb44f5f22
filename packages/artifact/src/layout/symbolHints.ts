import type { LayoutSymbol } from './types.js';

const CANARY = new Set(['__stack_chk_fail', '__stack_chk_guard', '__stack_chk_fail_local', '__intel_security_cookie']);
const FORTIFIED = /^__[a-z0-9_]+_chk$/;

/** True when a symbol table references a stack-protector helper or guard. */
export function hasCanary(symbols: readonly LayoutSymbol[], prefix = ''): boolean {
  return symbols.some((s) => CANARY.has(prefix && s.name.startsWith(prefix) ? s.name.slice(prefix.length) : s.name));
}

/** True when a symbol table references a FORTIFY_SOURCE checked libc function (`__memcpy_chk`, …). */
export function hasFortify(symbols: readonly LayoutSymbol[], prefix = ''): boolean {
  return symbols.some((s) => {
    const name = prefix && s.name.startsWith(prefix) ? s.name.slice(prefix.length) : s.name;
    return FORTIFIED.test(name) && !CANARY.has(name);
  });
}
