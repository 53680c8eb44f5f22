import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEvidence } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');

const SOURCES: Record<string, string> = {
  'main.js':
    "const { ipcMain } = require('electron');\nipcMain.handle('files:open', () => fetch('https://api.example.com/v1'));\n",
  'tool.mjs':
    "import { readFile } from 'node:fs/promises';\nexport const load = () => fetch('https://api.example.com/v1');\n",
  'tool.cjs': "const os = require('node:os');\nmodule.exports = () => fetch('https://api.example.com/v1');\n",
};

describe('rea analyze on one JavaScript file', () => {
  it.each(Object.keys(SOURCES))(
    'should route %s to analyze_javascript_application after the inventory',
    async (name) => {
      await withTempDir(async (dir) => {
        const file = join(dir, name);
        writeFileSync(file, SOURCES[name]!);
        const result = await run(bin, ['analyze', file, '--format', 'json']);
        expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
        const report = JSON.parse(result.stdout) as {
          target: { kind: string; format: string };
          steps: { tool: string; note: string | null }[];
          records: unknown[];
        };
        expect(report.target).toMatchObject({ kind: 'javascript', format: 'javascript' });
        expect(report.steps).toEqual([
          expect.objectContaining({ tool: 'inspect_artifact', note: null }),
          expect.objectContaining({ tool: 'analyze_javascript_application', note: null }),
        ]);
        const analysis = parseEvidence(report.records[1]);
        expect(analysis.operation).toBe('analyze_javascript_application');
        const application = analysis.normalized_result as { urls: { url: string; host: string | null }[] };
        expect(application.urls).toEqual([
          expect.objectContaining({ url: 'https://api.example.com/v1', host: 'api.example.com' }),
        ]);
      });
    },
    120_000,
  );
});
