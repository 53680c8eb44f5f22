// A shared library is ET_DYN like a position-independent executable, but it is not one: readelf calls it
// a "Shared object file" (an ET_DYN without DF_1_PIE) and checksec a "DSO" (an ET_DYN without DT_DEBUG,
// the slot linkers give executables only). mitigations.pie is false for it, with a `shared-object`
// limitation saying so, and stays true for a PIE and false for a non-PIE executable. Held against
// readelf and against checksec's rule (read through readelf too) on binaries compiled here by gcc with
// GNU ld and by clang with ld.lld, including a shared library with PT_INTERP and an entry point.
import { expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { inspectBinaryLayoutTool } from '@rea/artifact';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext, skipUnless, toolsMissing } from '@rea/test-helpers';
import * as fx from './fixtures.js';

/** What readelf and checksec's rule make of the file: a PIE, a shared object, or an executable that is neither. */
function reference(path: string): { readelf: string; checksec: 'PIE' | 'DSO' | 'No PIE'; interpreter: boolean } {
  const header = execFileSync('readelf', ['-hlW', path], { encoding: 'utf8' });
  const dynamic = execFileSync('readelf', ['-dW', path], { encoding: 'utf8' });
  const type = /Type:\s+(.+)/.exec(header)![1]!.trim();
  const checksec = type.startsWith('EXEC') ? 'No PIE' : /\(DEBUG\)/.test(dynamic) ? 'PIE' : 'DSO';
  return { readelf: type, checksec, interpreter: /^\s+INTERP\s/m.test(header) };
}

async function mitigations(path: string): Promise<{ record: EvidenceRecord; pie: unknown; aslr: unknown }> {
  const outcome = await executeTool(inspectBinaryLayoutTool, { path, facet: 'mitigations' }, quietToolContext());
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  const result = outcome.record.normalized_result as { mitigations: { pie: unknown; aslr: unknown } };
  return { record: outcome.record, ...result.mitigations };
}

skipUnless(toolsMissing('gcc', 'clang', 'ld.lld', 'readelf'))('ELF mitigations.pie of shared objects', () => {
  const PIE = 'DYN (Position-Independent Executable file)';
  const SHARED = 'DYN (Shared object file)';
  // [case, fixture, readelf's type, checksec's word, PT_INTERP, expected pie]
  const CASES: Array<[string, () => string, string, 'PIE' | 'DSO' | 'No PIE', boolean, boolean]> = [
    ['a shared library (gcc, GNU ld)', fx.elfX64Shared, SHARED, 'DSO', false, false],
    ['a runnable shared library with PT_INTERP (gcc, GNU ld)', fx.elfX64RunnableShared, SHARED, 'DSO', true, false],
    ['a shared library (clang, ld.lld)', fx.elfX64LldShared, SHARED, 'DSO', false, false],
    ['a PIE (gcc -pie)', fx.elfX64Pie, PIE, 'PIE', true, true],
    ['a PIE (clang -pie, ld.lld)', fx.elfX64LldPie, PIE, 'PIE', true, true],
    ['a static PIE (gcc -static-pie)', fx.elfX64StaticPie, PIE, 'PIE', false, true],
    ['a non-PIE executable (gcc -no-pie)', fx.elfX64Plain, 'EXEC (Executable file)', 'No PIE', true, false],
  ];

  it.each(CASES)(
    'should agree with readelf and checksec on %s',
    async (_label, build, readelf, checksec, interp, pie) => {
      const path = build();
      const seen = reference(path);
      // Both references, as this host's tools give them, say what the case is named for.
      expect([seen.readelf, seen.checksec, seen.interpreter]).toEqual([readelf, checksec, interp]);
      const { record, pie: reported, aslr } = await mitigations(path);
      expect(reported).toBe(pie);
      // Every ET_DYN, library or PIE, is loaded at a randomized base; an ET_EXEC is not.
      expect(aslr).toBe(readelf.startsWith('DYN'));
      const notes = record.limitations.filter((l) => l.kind === 'shared-object');
      expect(notes).toHaveLength(checksec === 'DSO' ? 1 : 0);
      if (checksec === 'DSO') expect(notes[0]!.message).toContain('shared object');
    },
  );
});
