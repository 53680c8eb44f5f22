import { PT } from './elfNames.js';
import type { ElfContext } from './elfContext.js';
import type { ElfDynamic } from './elfSymbols.js';
import { symbolHints } from './symbolHints.js';
import type { Work } from './cooperative.js';
import type { LayoutMitigations, LayoutSymbol } from './types.js';

const ET_REL = 1;
const ET_EXEC = 2;
const ET_DYN = 3;
/**
 * ELF mitigations. NX from PT_GNU_STACK (absent means an executable stack on the ABIs that honour
 * it), RELRO from PT_GNU_RELRO plus BIND_NOW. PIE for an ET_DYN executable: one the linker marks
 * DF_1_PIE (readelf's test) or that has the DT_DEBUG slot linkers give executables only (checksec's);
 * any other ET_DYN is a shared object, not a PIE (checksec's "DSO"), though loaded at a randomized base
 * like one (ASLR). Relocatable objects report NX from their `.note.GNU-stack` section and null for
 * what only linking decides.
 */
export function* elfMitigations(
  context: ElfContext,
  dynamic: ElfDynamic,
  symbols: readonly LayoutSymbol[],
): Work<LayoutMitigations> {
  const stack = context.programs.find((p) => p.type === PT.GNU_STACK);
  let nx: boolean | null;
  let pie: boolean | null;
  let aslr: boolean | null;
  let relro: LayoutMitigations['relro'];
  if (context.fileType === ET_REL) {
    const note = context.sections.find((s) => s.name === '.note.GNU-stack');
    nx = note ? (note.flags & 4) === 0 : null;
    pie = null;
    aslr = null;
    relro = null;
  } else {
    nx = stack ? (stack.flags & 1) === 0 : false;
    pie =
      context.fileType === ET_DYN
        ? dynamic.pieFlag || dynamic.debug
        : context.fileType === ET_EXEC
          ? dynamic.pieFlag
          : null;
    aslr = context.fileType === ET_DYN ? true : pie;
    const hasRelro = context.programs.some((p) => p.type === PT.GNU_RELRO);
    relro = hasRelro ? (dynamic.bindNow ? 'full' : 'partial') : 'none';
  }
  // One pass over the symbols, with checkpoints: a library may have hundreds of thousands.
  const hints = yield* symbolHints(symbols);
  return {
    nx,
    pie,
    relro,
    stackCanary: hints.canary,
    fortify: hints.fortify,
    cfg: null,
    aslr,
    dep: nx,
    codeSignature: null,
    highEntropyVa: null,
    safeSeh: null,
  };
}
