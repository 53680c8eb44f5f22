import { basename } from 'node:path';
import { ReaError, createAnalysisProfile, isReaError, throwIfAborted } from '@rea/evidence';
import type { BinaryLayout } from '@rea/artifact';
import type { NativePort } from '@rea/native';
import { NATIVE_PORT, packageVersion, settingsOf, withDeadline } from '@rea/provider-kit';
import type {
  ActiveTarget,
  DeepProvider,
  DeepSession,
  OpenOptions,
  ProbeResult,
  TargetDescriptor,
  TargetSupport,
} from '@rea/provider-kit';
import { CAPSTONE_ENGINE_VERSION, decoderSource, engineFiles } from './engine.js';
import { warmX86 } from './analysis/fastX86.js';
import type { EngineArchitecture } from './engine.js';
import { discover } from './analysis/discovery.js';
import { ProcedureGraph } from './analysis/graph.js';
import { Pacer } from './analysis/pace.js';
import { findStrings } from './analysis/strings.js';
import { collectNames } from './names.js';
import { CAPSTONE_CAPABILITIES, CapstonePort } from './port.js';
import { CAPSTONE_OPEN_TIMEOUT_MS, CAPSTONE_SETTINGS } from './settings.js';

/**
 * This package's version as its installed manifest states it (found by package name, so bundled or
 * installed alike; a bundle states it at build time): the provider version in Evidence and part of the
 * analysis profile.
 */
export const CAPSTONE_PROVIDER_VERSION: string = packageVersion(import.meta.url, '@rea/provider-capstone');

/** The provider id. */
export const CAPSTONE_PROVIDER_ID = 'capstone';

const ARCHITECTURES: readonly string[] = ['x86_64', 'x86', 'aarch64'];
/** Container formats as `@rea/artifact` names them and as hosts sniff them (`mach-o`). */
const FORMATS: readonly string[] = ['elf', 'pe', 'macho', 'mach-o'];
const UNIVERSAL: readonly string[] = ['macho-fat', 'mach-o-universal'];

/** Options for {@link createCapstoneProvider}. */
export interface CapstoneProviderOptions {
  /**
   * Deadline for opening a target (parse, decode, discovery), in ms. Default: the host's
   * `REA_CAPSTONE_OPEN_TIMEOUT_MS` (`CAPSTONE_SETTINGS`, 600000 when unset).
   */
  openDeadlineMs?: number;
}

function unsupported(layout: BinaryLayout, reason: string, message: string): ReaError {
  return new ReaError('unsupported_target', message, {
    remediation:
      layout.format === 'macho-fat'
        ? 'Extract one slice (lipo -thin) and open it, or use a provider that selects slices.'
        : reason === 'relocatable-object'
          ? 'Open the linked program or library the object goes into, or use Ghidra, which applies relocations (`objdump -dr` lists the code with its relocations).'
          : 'Open an ELF, PE or thin Mach-O file for x86-64, x86 or AArch64, or use a provider that supports this target.',
    details: {
      format: layout.format,
      architecture: layout.architecture,
      reason,
      ...(layout.slices ? { slices: layout.slices.map((s) => s.architecture) } : {}),
    },
  });
}

/** The analysis profile: what shaped discovery. Its digest changes when the algorithm does. */
export function capstoneProfile() {
  return createAnalysisProfile({
    name: 'capstone-discovery',
    version: CAPSTONE_PROVIDER_VERSION,
    settings: {
      seeds: ['entry', 'symbols', 'exports', 'import-stubs', 'unwind-info', 'call-targets', 'code-pointers'],
      decode: 'linear-sweep-restarting-at-seeds',
      // x86 (64- and 32-bit): the fast reader, Capstone for every encoding it leaves (identical tables, tested).
      x86_reader: 'table-reader-with-capstone-fallback',
      syntax: 'intel',
      min_string: 4,
    },
  });
}

/** Reports the phase an open enters (absent when a library caller passes no progress sink). */
type PhaseReport = (message: string) => void;

async function analyse(
  target: ActiveTarget,
  signal: AbortSignal,
  report: PhaseReport,
): Promise<DeepSession<NativePort>> {
  // Parsed in slices with turns of the event loop between them: a symbol table of hundreds of
  // thousands of entries must not hold the loop, and a cancel must take effect meanwhile.
  report('parsing the layout');
  // The layout parser (and the rest of @rea/artifact) loads with the first open, not with the provider.
  // The file is read whole (a small one at once, a larger one without holding the loop); a layout this
  // process made moments ago of the same file holding the same bytes (inspect_binary_layout's) is taken.
  const { parseWholeBinaryFileAsync } = await import('@rea/artifact/layout');
  let layout: BinaryLayout;
  try {
    layout = await parseWholeBinaryFileAsync(target.path, { signal });
  } catch (error) {
    if (isReaError(error)) throw error;
    throwIfAborted(signal, 'read');
    throw new ReaError('target_unavailable', `Cannot read ${target.path}.`, {
      details: { path: target.path, reason: error instanceof Error ? error.message : String(error) },
    });
  }
  report('analysing the code');
  if (layout.format === 'macho-fat') {
    const names = (layout.slices ?? []).map((s) => s.architecture).join(', ');
    throw unsupported(
      layout,
      'universal-binary',
      `This is a universal Mach-O with slices ${names}; the embedded engine analyses one thin slice.`,
    );
  }
  if (!FORMATS.includes(layout.format))
    throw unsupported(layout, 'format', `The embedded engine does not analyse ${layout.format} files.`);
  if (!ARCHITECTURES.includes(layout.architecture)) {
    throw unsupported(
      layout,
      'architecture',
      `The embedded engine decodes x86-64, x86 and AArch64, not ${layout.architecture} (${layout.machine}).`,
    );
  }
  if (layout.header.fileType === 'ET_REL' || layout.header.fileType === 'MH_OBJECT') {
    // Calls and data references in an object are filled in by the linker (`call 0` + a relocation):
    // read as they stand they would name the wrong procedures.
    throw unsupported(
      layout,
      'relocatable-object',
      `This is a relocatable object (${layout.header.fileType}): its call and data targets are left to the linker, so the embedded engine does not analyse it.`,
    );
  }
  if (layout.endianness !== 'little')
    throw unsupported(layout, 'endianness', 'The embedded engine decodes little-endian code only.');
  // The x86 reader gets its type feedback and a start towards optimization (see warmX86).
  if (layout.architecture !== 'aarch64') warmX86();
  const decoder = decoderSource(layout.architecture as EngineArchitecture);
  try {
    // One pacer for the whole open: no stretch of analysis holds the event loop for long.
    const pacer = new Pacer(signal);
    const discovery = await discover(layout, decoder, signal, 'fast', pacer);
    const { strings } = await findStrings(layout, signal, pacer);
    const graph = await ProcedureGraph.build(layout, discovery, pacer);
    const names = await collectNames(layout, discovery, pacer);
    await pacer.turn('publication');
    const port = new CapstonePort(layout, decoder, discovery, strings, basename(target.path), graph, names);
    return {
      provider: { id: CAPSTONE_PROVIDER_ID, name: 'Capstone', version: CAPSTONE_ENGINE_VERSION },
      analysis_profile: capstoneProfile(),
      session: port,
      close: async () => {
        decoder.close();
      },
    };
  } catch (error) {
    decoder.close();
    throw error;
  }
}

/**
 * The embedded deep-analysis provider: Capstone compiled to WebAssembly, zero install. Opens ELF, PE
 * and thin Mach-O on x86-64, x86 and AArch64; its session is a native port (see `@rea/native`)
 * without pseudocode, comments or bookmarks. `embedded: true`, so `auto` falls back to it.
 */
export function createCapstoneProvider(options: CapstoneProviderOptions = {}): DeepProvider<typeof NATIVE_PORT> {
  return {
    kind: 'deep',
    port: NATIVE_PORT,
    id: CAPSTONE_PROVIDER_ID,
    name: 'Capstone',
    version: CAPSTONE_PROVIDER_VERSION,
    embedded: true,
    capabilities: [...CAPSTONE_CAPABILITIES],
    settings: CAPSTONE_SETTINGS,
    async probe(): Promise<ProbeResult> {
      try {
        engineFiles();
        return { status: 'ready', version: CAPSTONE_ENGINE_VERSION };
      } catch (error) {
        return {
          status: 'unavailable',
          reason: error instanceof Error ? error.message : String(error),
          remediation: 'Reinstall @rea/provider-capstone so that its WebAssembly engine is present.',
        };
      }
    },
    tools: () => [],
    supportsTarget(target: TargetDescriptor): TargetSupport {
      // A universal binary is opened so that the refusal can name its slices (unsupported_target).
      if (UNIVERSAL.includes(target.format)) return 'unknown';
      if (!FORMATS.includes(target.format)) return 'unsupported';
      if (target.architecture === undefined) return 'unknown';
      return ARCHITECTURES.includes(target.architecture) ? 'supported' : 'unsupported';
    },
    async open(target: ActiveTarget, open: OpenOptions): Promise<DeepSession<NativePort>> {
      // Without a composed configuration (a library caller), the setting's default applies.
      const configured = open.config
        ? settingsOf(CAPSTONE_SETTINGS, open.config).capstoneOpenTimeoutMs
        : CAPSTONE_OPEN_TIMEOUT_MS;
      const progress = open.progress as OpenOptions['progress'] | undefined;
      const report: PhaseReport = (message) => progress?.report(message, 'open');
      return withDeadline((signal) => analyse(target, signal, report), {
        ms: options.openDeadlineMs ?? configured,
        signal: open.signal,
        phase: 'open',
        providerId: CAPSTONE_PROVIDER_ID,
        ...(options.openDeadlineMs === undefined ? { setting: 'REA_CAPSTONE_OPEN_TIMEOUT_MS' } : {}),
      });
    },
  };
}
