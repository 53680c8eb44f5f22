import { DIR, DLLCHAR } from './peNames.js';
import { rvaToOffset } from './peContext.js';
import { hasCanary, hasFortify } from './symbolHints.js';
import type { PeContext } from './peContext.js';
import type { LayoutMitigations, LayoutSymbol } from './types.js';

const IMAGE_FILE_RELOCS_STRIPPED = 0x1;

/** Load-config fields: the security cookie address and the SafeSEH handler count (32-bit only). */
function loadConfig(context: PeContext): { cookie: boolean; sehHandlers: number | null } {
  const directory = context.directories[DIR.LOAD_CONFIG];
  if (!directory || directory.rva === 0) return { cookie: false, sehHandlers: null };
  const o = rvaToOffset(context, directory.rva);
  if (o === null || !context.reader.contains(o, 4)) return { cookie: false, sehHandlers: null };
  const r = context.reader;
  const size = r.u32(o);
  const cookieAt = context.is64 ? 0x58 : 0x3c;
  const cookie =
    size >= cookieAt + (context.is64 ? 8 : 4) &&
    r.contains(o + cookieAt, 8) &&
    (r.u32(o + cookieAt) !== 0 || (context.is64 && r.u32(o + cookieAt + 4) !== 0));
  const sehHandlers = !context.is64 && size >= 0x48 && r.contains(o + 0x44, 4) ? r.u32(o + 0x44) : null;
  return { cookie, sehHandlers };
}

/** PE mitigations from DllCharacteristics, the load configuration and the certificate table. */
export function peMitigations(context: PeContext, symbols: readonly LayoutSymbol[]): LayoutMitigations {
  const flags = context.dllCharacteristics;
  const aslr = (flags & DLLCHAR.DYNAMIC_BASE) !== 0 && (context.characteristics & IMAGE_FILE_RELOCS_STRIPPED) === 0;
  const nx = (flags & DLLCHAR.NX_COMPAT) !== 0;
  const config = loadConfig(context);
  const certificate = context.directories[DIR.CERTIFICATE];
  return {
    nx,
    pie: aslr,
    relro: null,
    stackCanary: config.cookie || hasCanary(symbols) || symbols.some((s) => s.name === '__security_cookie'),
    fortify: hasFortify(symbols),
    cfg: (flags & DLLCHAR.GUARD_CF) !== 0,
    aslr,
    dep: nx,
    codeSignature: certificate !== undefined && certificate.rva !== 0 && certificate.size > 0,
    highEntropyVa: context.is64 ? (flags & DLLCHAR.HIGH_ENTROPY_VA) !== 0 : null,
    safeSeh: context.is64 ? null : (flags & DLLCHAR.NO_SEH) !== 0 || (config.sehHandlers ?? 0) > 0,
  };
}
