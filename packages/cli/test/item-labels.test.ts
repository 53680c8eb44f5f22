// The brief form of a record names the first items of each list: by name, path or id when they have
// one; otherwise by what they observed (a string's value, the API an effect calls, the specifier an
// edge imports), not by the file they were found in, which every item of a file shares.
import { describe, expect, it } from '@jest/globals';
import type { EvidenceRecord } from '@rea/evidence';
import { formatEvidence } from '../src/format.js';

const record = (result: Record<string, unknown>) =>
  ({
    operation: 'analyze_javascript_application',
    evidence_id: `ev_${'0'.repeat(64)}`,
    subject: null,
    provider: { id: 'javascript', name: '@rea/javascript', version: '0.0.0' },
    confidence: 'observed',
    coverage: { status: 'complete', reasons: [] },
    limitations: [],
    normalized_result: result,
  }) as unknown as EvidenceRecord;

describe('labels of list items in the brief form', () => {
  it('should name items by what they observed when they have no name', () => {
    const long = `${'a'.repeat(38)}\u{1F600}tail`;
    const text = formatEvidence(
      record({
        strings: [
          { node_id: 'file:app.js', line: 1, column: 2, value: './index.js' },
          { node_id: 'file:app.js', line: 3, column: 2, value: long },
        ],
        effects: [{ node_id: 'file:app.js', line: 5, column: 1, category: 'process', api: 'process.exit' }],
        edges: [{ from: 'file:app.js', specifier: 'node:fs', kind: 'import', to: null }],
        assets: [{ path: 'app.js', node_id: 'file:app.js' }],
        symbols: [{ name: 'main', address: '0x1000' }],
        locations: [{ node_id: 'file:app.js', line: 9 }],
      }),
      true,
    );
    expect(text).toContain(`    strings: 2 items ("./index.js", "${'a'.repeat(38)}…")\n`);
    expect(text).toContain('    effects: 1 item (process.exit)\n');
    expect(text).toContain('    edges: 1 item (node:fs)\n');
    expect(text).toContain('    assets: 1 item (app.js)\n');
    expect(text).toContain('    symbols: 1 item (main@0x1000)\n');
    expect(text).toContain('    locations: 1 item (file:app.js)\n');
  });
});
