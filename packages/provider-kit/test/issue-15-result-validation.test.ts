import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool, executeTool, validateCooperatively } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';

const Item = z.strictObject({ name: z.string(), n: z.number().int() });
const Complete = z.strictObject({
  view: z.literal('complete'),
  label: z.string(),
  items: z.array(Item),
  tags: z.array(z.string()).min(1),
});
const Result = z.union([z.strictObject({ view: z.literal('summary'), count: z.number().int() }), Complete]);

function tableTool(items: unknown[], onReturn: () => void = () => undefined, result: z.ZodType = Result) {
  return defineTool({
    name: 'table_tool',
    title: 'Table tool',
    description: 'Test tool: Evidence holding a long table.',
    produces: 'evidence',
    input: z.strictObject({}),
    result,
    examples: [{ input: {} }],
    effects: RECORDS_EVIDENCE,
    run: async () => {
      onReturn();
      return {
        subject: null,
        provider: { id: 'unit', name: 'Unit', version: '0.0.0' },
        analysis_profile: null,
        parameters: {},
        normalized_result: { view: 'complete' as const, label: 'big', items: items as never, tags: ['t'] },
        raw_result: null,
        confidence: 'observed' as const,
        limitations: [],
        coverage: { status: 'complete' as const, reasons: [] },
        locations: [],
        evidence_links: [],
      };
    },
  });
}

const items = Array.from({ length: 30_000 }, (_, i) => ({ name: `item ${i}`, n: i }));

describe('issue 15: validating a large result', () => {
  it('should accept a valid long table and refuse an invalid item deep in it with its path', async () => {
    const ok = await executeTool(tableTool(items), {}, quietToolContext());
    expect(ok.kind).toBe('evidence');
    const bad = items.map((item, i) => (i === 25_123 ? { ...item, n: 'x' } : item));
    await expect(executeTool(tableTool(bad, undefined, Complete), {}, quietToolContext())).rejects.toMatchObject({
      code: 'internal',
      details: { issues: [expect.objectContaining({ path: 'items.25123.n' })] },
    });
    // Through a union no option accepts: the issue of the option that came closest, with its path.
    await expect(executeTool(tableTool(bad), {}, quietToolContext())).rejects.toMatchObject({
      code: 'internal',
      details: { issues: [expect.objectContaining({ path: 'items.25123.n' })] },
    });
  });

  it('should give the event loop turns while it validates, so that a cancel sent meanwhile ends the call', async () => {
    const controller = new AbortController();
    const tool = tableTool(items, () => setImmediate(() => controller.abort()));
    await expect(executeTool(tool, {}, quietToolContext({ signal: controller.signal }))).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'validation' },
    });
  });

  it('should judge a table nested in an object member (a record around its result) with turns of the loop', async () => {
    const Record = z.strictObject({ id: z.string(), normalized_result: Result });
    const record = (table: unknown[]) => ({
      id: 'r',
      normalized_result: { view: 'complete', label: 'big', items: table, tags: ['t'] },
    });
    let turns = 0;
    let stopped = false;
    const tick = (): void => {
      if (stopped) return;
      turns += 1;
      setImmediate(tick);
    };
    setImmediate(tick);
    try {
      await expect(validateCooperatively(Record, record(items), undefined)).resolves.toBeNull();
      expect(turns).toBeGreaterThan(0);
    } finally {
      stopped = true;
    }
    const bad = items.map((item, i) => (i === 25_123 ? { ...item, n: 'x' } : item));
    const issues = await validateCooperatively(
      z.strictObject({ id: z.string(), normalized_result: Complete }),
      record(bad),
      undefined,
    );
    expect(issues?.[0]?.path).toEqual(['normalized_result', 'items', 25_123, 'n']);
    // The envelope around the table is judged too.
    const shell = await validateCooperatively(Record, { ...record(items), id: 3 }, undefined);
    expect(shell?.[0]?.path).toEqual(['id']);
  });

  it('should stop judging a nested table with cancelled when the signal is aborted meanwhile', async () => {
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const Record = z.strictObject({ id: z.string(), normalized_result: Complete });
    const value = { id: 'r', normalized_result: { view: 'complete', label: 'big', items, tags: ['t'] } };
    await expect(validateCooperatively(Record, value, controller.signal)).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'validation' },
    });
  });
});
