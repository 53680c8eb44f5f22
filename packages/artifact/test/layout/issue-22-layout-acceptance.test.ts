// inspect_binary_layout's result is judged against its output schema before it is sealed, by a check
// that builds nothing where the result is valid: on a real program's layout, and on that layout with
// one member of one table entry changed, the judgement is zod's own.
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { inspectBinaryLayoutTool } from '@rea/artifact';
import { executeTool, validateCooperatively } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';

const PROGRAM = ['/usr/bin/ls', '/bin/ls'].find((path) => existsSync(path))!;

const CHANGES: unknown[] = [undefined, null, -1, 1.5, 'main', '0xABC', '0x', true, [], {}];

describe('issue 22: judging a layout result', () => {
  it("should give zod's verdict on a real layout and on every one-member change of its table entries", async () => {
    const outcome = await executeTool(inspectBinaryLayoutTool, { path: PROGRAM }, quietToolContext());
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    const whole = outcome.record.normalized_result as Record<string, Array<Record<string, unknown>>>;
    const schema = inspectBinaryLayoutTool.result;
    expect(await validateCooperatively(schema, whole, undefined)).toBeNull();
    // The changes are judged on the layout's last entries of each table (zod's parse of all is slow).
    const layout = { ...whole };
    for (const table of ['sections', 'segments', 'symbols', 'imports', 'exports'])
      layout[table] = whole[table]!.slice(-3);
    let judged = 0;
    for (const table of ['sections', 'segments', 'symbols', 'imports', 'exports']) {
      const entries = layout[table]!;
      expect(entries.length).toBeGreaterThan(0);
      const at = entries.length - 1;
      for (const key of [...Object.keys(entries[at]!), 'extra']) {
        for (const value of CHANGES) {
          const changed = entries.map((entry, i) => (i === at ? { ...entry, [key]: value } : entry));
          const candidate = { ...layout, [table]: changed };
          const zod = schema.safeParse(candidate).success;
          const issues = await validateCooperatively(schema, candidate, undefined);
          expect({ table, key, value, accepted: issues === null }).toEqual({ table, key, value, accepted: zod });
          judged += 1;
        }
      }
    }
    expect(judged).toBeGreaterThan(200);
  });
});
