import { afterAll, expect } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProviderContract } from '@rea/contract-tests';
import { createScriptedEngineProvider } from '../src/index.js';
import type { ScriptedSession } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'rea-example-engine-'));
const targetPath = join(dir, 'target.raw');
writeFileSync(targetPath, randomBytes(300));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeProviderContract('example: scripted stand-in engine', () => createScriptedEngineProvider(), {
  target: { path: targetPath, format: 'raw' },
  capabilityProbes: {
    'read-bytes': async ({ runTool, supervisor, binding }) => {
      expect(binding?.provider.version).toBe('2.3.0');
      const outcome = await runTool('read_engine_bytes', { offset: 17, length: 200 });
      const expected = readFileSync(targetPath).subarray(17, 217).toString('hex');
      expect(outcome).toMatchObject({ kind: 'evidence', record: { normalized_result: { hex: expected } } });
      // The engine and its helper are owned and observed while the session is open.
      const [lineage] = supervisor.lineage();
      expect(lineage).toMatchObject({ status: 'verified', launcher_alive: true });
      if (lineage?.status === 'verified') expect(lineage.descendants.map((d) => d.comm)).toContain('sleep');
      expect(supervisor.owned().map((r) => r.kind)).toContain('temp-directories');
    },
  },
  undeclared: {
    disassembly: async ({ session }) => (session!.session as ScriptedSession).disassemble(0x1000),
  },
});
