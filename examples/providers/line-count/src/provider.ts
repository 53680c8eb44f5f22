import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { ReaError, createAnalysisProfile } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { ToolsProvider } from '@rea/provider-kit';
import { countLines } from './engine.js';

const identity = { id: 'line-count', name: 'Line counter', version: '0.0.1' };

/** `not_found` when nothing is at `path`. */
async function requireExists(path: string): Promise<void> {
  await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    throw new ReaError('not_found', `No file at ${path}.`, {
      remediation: 'Pass the path of an existing file.',
      details: { reason: 'missing', path },
    });
  });
}

/** Reads the counted file's identity (format, SHA-256, size). */
async function subjectOf(path: string, signal: AbortSignal) {
  const bytes = await readFile(path, { signal });
  return { format: 'text', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
}

/**
 * A tools provider: its tool names its own target (a path) and starts a process for each call through
 * the call's supervisor, so nothing is bound by `open_binary` and nothing outlives the call.
 */
export function createLineCountProvider(): ToolsProvider {
  const countTool = defineTool({
    name: 'count_lines',
    title: 'Count lines',
    description: 'Counts the newline bytes of a file in a separate process and returns the count as Evidence.',
    input: z.object({ path: z.string().min(1).describe('Path of the file to count.') }),
    result: z.object({ lines: z.number().int().nonnegative() }),
    examples: [{ input: { path: '/etc/hosts' }, description: 'Count the lines of a text file.' }],
    effects: { ...RECORDS_EVIDENCE, launchesProcess: true },
    produces: 'evidence',
    run: async ({ path }, { signal, supervisor }) => {
      await requireExists(path);
      // The host made `supervisor` for this call and closes it when the call settles.
      const lines = await countLines(path, supervisor, signal);
      const subject = await subjectOf(path, signal);
      return {
        subject,
        provider: identity,
        analysis_profile: createAnalysisProfile({ name: 'line-count', version: '1', settings: {} }),
        parameters: {}, // the path is machine-local: it goes in `local`, outside the identity
        normalized_result: { lines },
        raw_result: null,
        confidence: 'observed',
        limitations: [],
        coverage: { status: 'complete', reasons: [] },
        locations: [],
        evidence_links: [],
        local: { path },
      };
    },
  });
  return {
    ...identity,
    kind: 'tools',
    capabilities: ['line-count'],
    probe: async () => ({ status: 'ready' }),
    tools: () => [countTool],
  };
}
