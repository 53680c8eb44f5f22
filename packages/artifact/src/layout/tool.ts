import { createHash } from 'node:crypto';
import { Buffer } from 'node:buffer';
import { statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { z } from 'zod';
import { ReaError, SummaryViewSchema, fileSystemError, throwIfAborted } from '@rea/evidence';
import type { Limitation } from '@rea/evidence';
import {
  RECORDS_EVIDENCE,
  SMALL_FILE_BYTES,
  defineTool,
  hashSmallFileSync,
  requireRetention,
  retainAndSummarize,
} from '@rea/provider-kit';
import { ARTIFACT_PROVIDER, artifactProfile } from '../tools/common.js';
import { runCooperatively } from './cooperative.js';
import { normalizeLayoutWork } from './normalize.js';
import { parseBinaryLayoutFileAsync, parseWholeBinaryFileAsync } from './parse.js';
import { BinaryLayoutFacetResultSchema, BinaryLayoutResultSchema, LayoutFacetSchema } from './schemas.js';
import type { BinaryLayoutFacetResult, BinaryLayoutResult, LayoutFacet } from './schemas.js';
import type { BinaryLayout } from './types.js';

/** Largest file `inspect_binary_layout` reads into memory. */
export const MAX_LAYOUT_FILE_BYTES = 1 << 30;

const InputSchema = z.strictObject({
  path: z.string().min(1).describe('Local path of an ELF, PE/PE32+ or Mach-O (thin or universal) file.'),
  detail: z
    .enum(['complete', 'summary'])
    .default('complete')
    .describe(
      'complete (default) returns the layout Evidence; summary retains exactly that record in the session and returns its inspect_analysis_view summary, whose parent_evidence_id names it.',
    ),
  facet: LayoutFacetSchema.optional().describe(
    'Return only this part of the layout (with headers and counts): headers, sections, segments, symbols, imports, exports, mitigations or linkage.',
  ),
});

const ELF_PLT_MACHINES = new Set(['EM_X86_64', 'EM_386', 'EM_AARCH64', 'EM_ARM']);

/** Checks the path names a regular file within the size limit; returns its size. (One status call: synchronous.) */
function checkTarget(path: string): number {
  let info: Stats;
  try {
    info = statSync(path);
  } catch (error) {
    throw fileSystemError(error, path, 'read');
  }
  if (!info.isFile()) {
    throw new ReaError('unsupported_target', `${path} is not a regular file.`, {
      details: { path, format: info.isDirectory() ? 'directory' : 'special', reason: 'not-a-file' },
      remediation: 'Pass the path of an executable, library or object file.',
    });
  }
  if (info.size > MAX_LAYOUT_FILE_BYTES) {
    throw new ReaError(
      'resource_constraint',
      `${path} is larger than the ${MAX_LAYOUT_FILE_BYTES}-byte layout limit.`,
      {
        details: { resource: 'file-size', limit: MAX_LAYOUT_FILE_BYTES, observed: info.size },
      },
    );
  }
  return info.size;
}

/**
 * The file's SHA-256 and size as read: a small file at once (see @rea/provider-kit's hashSmallFileSync),
 * a larger one streamed through one buffer (no file-sized allocation), checking `signal` between reads.
 */
async function hashFile(path: string, signal: AbortSignal): Promise<{ sha256: string; size: number }> {
  throwIfAborted(signal, 'hashing');
  let small: ReturnType<typeof hashSmallFileSync>;
  try {
    small = hashSmallFileSync(path);
  } catch (error) {
    throw fileSystemError(error, path, 'read');
  }
  if (small !== null) return { sha256: small.sha256, size: small.bytesRead };
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw fileSystemError(error, path, 'read');
  });
  try {
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(1 << 20);
    let size = 0;
    for (;;) {
      throwIfAborted(signal, 'hashing');
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, size);
      if (bytesRead === 0) break;
      hash.update(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
    return { sha256: hash.digest('hex'), size };
  } catch (error) {
    // A file that cannot be read to its end (EIO from /proc/self/mem, a failing disk): typed, with the path.
    throw fileSystemError(error, path, 'read');
  } finally {
    await handle.close();
  }
}

function limitationsOf(layout: BinaryLayout): Limitation[] {
  const out: Limitation[] = [];
  const unresolved = layout.imports.filter((i) => i.address === null).length;
  if (layout.format === 'elf' && !ELF_PLT_MACHINES.has(layout.machine) && layout.imports.length > 0) {
    out.push({
      kind: 'plt-resolution-unsupported',
      message: `PLT stubs are not decoded for ${layout.machine}; import addresses are null.`,
    });
  } else if (unresolved > 0) {
    out.push({
      kind: 'import-address-unresolved',
      message: `${unresolved} of ${layout.imports.length} imports have no call stub (data imports, or calls through the GOT).`,
    });
  }
  if (layout.format === 'elf' && layout.header.fileType === 'ET_DYN' && layout.mitigations.pie === false) {
    out.push({
      kind: 'shared-object',
      message:
        'The file is a shared object (ET_DYN neither marked DF_1_PIE nor holding DT_DEBUG), not an executable: mitigations.pie is false, as checksec calls it a DSO and readelf a shared object file; its code is still loaded at a randomized base (aslr true).',
    });
  }
  if (layout.format === 'macho' && layout.mitigations.pie === false && layout.header.fileType !== 'MH_EXECUTE') {
    out.push({
      kind: 'shared-object',
      message: `The file is a ${layout.header.fileType}, not an executable: mitigations.pie (an executable's MH_PIE flag) is false; its code is still loaded at a slid address (aslr true).`,
    });
  }
  if (layout.slices && layout.slices.length > 1) {
    out.push({
      kind: 'universal-slice-selected',
      message: `The universal binary has ${layout.slices.length} slices; sections, symbols and imports describe the ${layout.architecture} slice.`,
    });
  }
  return out;
}

function facetOf(result: BinaryLayoutResult, facet: LayoutFacet): BinaryLayoutFacetResult {
  const base: BinaryLayoutFacetResult = { view: 'facet', facet, headers: result.headers, counts: result.counts };
  if (facet === 'headers') return base;
  return { ...base, [facet]: result[facet] };
}

/**
 * `inspect_binary_layout`: the layout of an ELF, PE or Mach-O file without running it. Evidence with
 * subject `{ format, sha256, size }`; addresses are lowercase `0x` strings.
 */
export const inspectBinaryLayoutTool = defineTool({
  name: 'inspect_binary_layout',
  title: 'Inspect binary layout',
  description:
    'Parses an ELF (32/64-bit, either byte order), PE/PE32+ (.NET detected) or Mach-O (thin or universal) file without running it and returns its headers, sections, segments, symbols, imports (with the PLT stub, IAT slot or __stubs address code calls through), exports, needed libraries, entry point, a mitigations facet (NX, PIE, RELRO, stack canary, FORTIFY, CFG, ASLR/DEP, code signature) and a linkage facet (static/dynamic, interpreter, rpath/runpath). Use it first on an unknown native binary; pass facet to get one part, or detail "summary" to retain the layout in the session and receive its inspect_analysis_view summary (read parts later with inspect_analysis_view). Returns Evidence.',
  input: InputSchema,
  result: z.union([BinaryLayoutResultSchema, BinaryLayoutFacetResultSchema, SummaryViewSchema]),
  examples: [
    { input: { path: '/usr/bin/ls' }, description: 'The complete layout of an executable.' },
    { input: { path: '/usr/bin/ls', facet: 'mitigations' }, description: 'Only the mitigations of an executable.' },
    {
      input: { path: '/usr/lib/x86_64-linux-gnu/libc.so.6', detail: 'summary' },
      description: 'Retain the layout of a large library and return its summary.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  clientFeatures: { optional: ['progress'] },
  produces: 'evidence',
  async run(input, context) {
    const ledger = context.ledger;
    if (input.detail === 'summary') requireRetention(ledger);
    checkTarget(input.path);
    context.progress.report('hashing the file', 'layout');
    const { sha256, size } = await hashFile(input.path, context.signal);
    context.progress.report(`parsing the headers and tables of ${size} bytes`, 'layout');
    let layout: BinaryLayout;
    try {
      // In slices, checking the signal between them: a large binary must not hold the event loop. A small
      // one is read whole, so that an engine opening it next in this process finds it parsed; a larger
      // one is read only where its headers and tables are.
      layout =
        size <= SMALL_FILE_BYTES
          ? await parseWholeBinaryFileAsync(input.path, { signal: context.signal })
          : await parseBinaryLayoutFileAsync(input.path, { signal: context.signal });
    } catch (error) {
      throw fileSystemError(error, input.path, 'read');
    }
    const result = await runCooperatively(normalizeLayoutWork(layout), context.signal);
    // The same parameters for both details: a summary retains exactly the record "complete" returns.
    const parameters = { detail: 'complete', facet: input.facet ?? null };
    const complete = {
      subject: { format: layout.format, sha256, size },
      provider: ARTIFACT_PROVIDER,
      analysis_profile: artifactProfile('layout', { address_space: 'virtual', address_format: 'hex' }),
      parameters,
      normalized_result: input.facet ? facetOf(result, input.facet) : result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations: limitationsOf(layout),
      coverage: { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [],
      local: { path: input.path },
    };
    if (input.detail === 'complete') return complete;
    requireRetention(ledger);
    return retainAndSummarize('inspect_binary_layout', complete, ledger, context.signal);
  },
});
