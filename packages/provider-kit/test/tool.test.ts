import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { isReaError } from '@rea/evidence';
import { defineTool, executeTool } from '@rea/provider-kit';
import type { EvidenceToolDefinition, ToolContext, ToolEffects } from '@rea/provider-kit';

const pure: ToolEffects = {
  readOnly: false,
  mutatesSession: true,
  writesFilesystem: false,
  launchesProcess: false,
  executesForeignCode: false,
  mutatesDevice: false,
  mayDiscardData: false,
  idempotent: true,
  openWorld: false,
};

const echoDefinition = {
  name: 'echo_text',
  title: 'Echo text',
  description: 'Returns the text it is given as an observation; used to test the contract machinery.',
  input: z.object({ text: z.string().min(1).describe('Text to echo.') }),
  result: z.object({ text: z.string() }),
  examples: [{ input: { text: 'hello' } }],
  effects: pure,
  produces: 'evidence' as const,
  run: async (input: { text: string }) => ({
    subject: null,
    provider: { id: 'test', name: 'Test', version: '1' },
    analysis_profile: null,
    parameters: { text: input.text },
    normalized_result: { text: input.text },
    raw_result: null,
    confidence: 'observed' as const,
    limitations: [],
    coverage: { status: 'complete' as const, reasons: [] },
    locations: [],
    evidence_links: [],
  }),
} satisfies EvidenceToolDefinition<z.ZodObject<{ text: z.ZodString }>, z.ZodObject<{ text: z.ZodString }>>;
const echo = defineTool(echoDefinition);

function context(signal = new AbortController().signal): ToolContext {
  const noop = () => undefined;
  return {
    session: { target: null, binding: null, run_id: null },
    platform: process.platform,
    signal,
    progress: { report: noop },
    logger: { debug: noop, info: noop, warn: noop, error: noop },
    ledger: null,
    clientFeatures: new Set(),
  };
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

describe('defineTool', () => {
  it('should derive annotations from effects', () => {
    expect(echo.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    const foreign = defineTool({
      ...echoDefinition,
      name: 'run_thing',
      effects: { ...pure, executesForeignCode: true, launchesProcess: true },
    });
    expect(foreign.annotations.destructiveHint).toBe(true);
  });

  it('should refuse readOnly together with writesFilesystem', () => {
    expect(() =>
      defineTool({
        ...echoDefinition,
        effects: { ...pure, readOnly: true, mutatesSession: false, writesFilesystem: true },
      }),
    ).toThrow(/readOnly contradicts writesFilesystem/);
  });

  it('should refuse a missing effect flag', () => {
    const { openWorld: _drop, ...partial } = pure;
    expect(() => defineTool({ ...echoDefinition, effects: partial as ToolEffects })).toThrow(/openWorld/);
  });

  it('should refuse undescribed input properties and invalid or repeated examples', () => {
    expect(() => defineTool({ ...echoDefinition, input: z.object({ text: z.string() }) })).toThrow(
      /"text" has no description/,
    );
    expect(() => defineTool({ ...echoDefinition, examples: [{ input: { text: '' } }] })).toThrow(
      /example 0 is not a valid input/,
    );
    expect(() =>
      defineTool({ ...echoDefinition, examples: [{ input: { text: 'a' } }, { input: { text: 'a' } }] }),
    ).toThrow(/repeats/);
  });
});

describe('executeTool', () => {
  it('should seal Evidence with the tool name as operation', async () => {
    const outcome = await executeTool(echo, { text: 'hi' }, context());
    expect(outcome.kind).toBe('evidence');
    if (outcome.kind !== 'evidence') return;
    expect(outcome.record.operation).toBe('echo_text');
    expect(outcome.record.evidence_id).toMatch(/^ev_[0-9a-f]{64}$/);
    expect(outcome.record.normalized_result).toEqual({ text: 'hi' });
  });

  it('should turn schema failures into invalid_request with paths', async () => {
    const error = await failure(executeTool(echo, { text: 3 }, context()));
    expect(error.code).toBe('invalid_request');
    expect(error.details['issues']).toEqual([expect.objectContaining({ path: 'text' })]);
  });

  it('should report cancellation, not a result, when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(executeTool(echo, { text: 'hi' }, context(controller.signal)));
    expect(error.code).toBe('cancelled');
  });
});
