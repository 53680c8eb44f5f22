import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ReaError, isReaError, throwIfAborted } from '@rea/evidence';
import {
  NO_EFFECTS,
  RECORDS_EVIDENCE,
  defineTool,
  deriveAnnotations,
  executeTool,
  validateEffects,
} from '@rea/provider-kit';
import type { EvidenceToolDefinition, ToolContext, ToolEffects } from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';

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
  return quietToolContext({ signal });
}

async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; message: string; details: Record<string, unknown> };
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

  it("should answer a result JSON cannot hold as the tool's internal error, not as the caller's input", async () => {
    const infinite = defineTool({
      ...echoDefinition,
      name: 'infinite_echo',
      result: z.object({ value: z.unknown() }),
      run: async () => ({ ...(await echoDefinition.run({ text: 'x' })), normalized_result: { value: -Infinity } }),
    });
    const error = await failure(executeTool(infinite, { text: 'hi' }, context()));
    expect(error.code).toBe('internal');
    expect(error.message).toBe(
      'infinite_echo produced a result that is not JSON: Value at $.normalized_result.value cannot be represented in canonical JSON: -Infinity is not a JSON number.',
    );
    expect(error.details).toMatchObject({ reason: 'not-json', path: '$.normalized_result.value' });
  });

  it("should keep the host's reason when a tool stops with a cancelled of its own, and the tool's phase", async () => {
    // As the artifact tools stop (throwIfAborted(signal, 'inventory')) when close_binary cancels them.
    const controller = new AbortController();
    const phased = defineTool({
      ...echoDefinition,
      name: 'phased_echo',
      run: async (_input: { text: string }, ctx: ToolContext) => {
        controller.abort(
          new ReaError('cancelled', 'close_binary closed the session while this call was running.', {
            details: { phase: 'running', reason: 'session-closed' },
            remediation: 'Open the target again and repeat the call.',
          }),
        );
        throwIfAborted(ctx.signal, 'inventory');
        throw new Error('not reached');
      },
    });
    const error = await failure(executeTool(phased, { text: 'hi' }, context(controller.signal)));
    expect(error).toMatchObject({
      code: 'cancelled',
      message: 'phased_echo was cancelled: close_binary closed the session while this call was running.',
      details: { phase: 'inventory', reason: 'session-closed' },
      remediation: 'Open the target again and repeat the call.',
    });
    // A cancel without a reason of the host's keeps the tool's own words.
    const plain = new AbortController();
    const own = defineTool({
      ...echoDefinition,
      name: 'own_echo',
      run: async (_input: { text: string }, ctx: ToolContext) => {
        plain.abort();
        throwIfAborted(ctx.signal, 'inventory');
        throw new Error('not reached');
      },
    });
    expect(await failure(executeTool(own, { text: 'hi' }, context(plain.signal)))).toMatchObject({
      code: 'cancelled',
      message: 'Cancelled during inventory.',
      details: { phase: 'inventory' },
    });
  });
});

describe('derived annotations', () => {
  // Every consistent combination of the flags that feed the annotations, checked against the rule
  // stated in the design: destructive = mayDiscardData ∨ executesForeignCode ∨ mutatesDevice.
  const combos: ToolEffects[] = [];
  for (let bits = 0; bits < 64; bits += 1) {
    const flag = (n: number) => (bits & (1 << n)) !== 0;
    const effects: ToolEffects = {
      ...pure,
      mayDiscardData: flag(0),
      executesForeignCode: flag(1),
      launchesProcess: flag(1),
      mutatesDevice: flag(2),
      idempotent: flag(3),
      openWorld: flag(4),
      readOnly: flag(5),
      mutatesSession: !flag(5),
    };
    const contradicts =
      effects.readOnly && (effects.mayDiscardData || effects.executesForeignCode || effects.mutatesDevice);
    if (!contradicts) combos.push(effects);
  }

  it('should cover consistent combinations', () => {
    // 32 non-read-only combinations, plus the 4 read-only ones that neither discard, run foreign code nor touch a device.
    expect(combos.length).toBe(36);
  });

  for (const effects of combos) {
    const label = Object.entries(effects)
      .filter(([, on]) => on)
      .map(([flag]) => flag)
      .join('+');
    it(`should derive the annotations of ${label}`, () => {
      const contract = defineTool({
        ...echoDefinition,
        produces: 'result',
        result: z.object({ text: z.string() }),
        run: async (input: { text: string }) => ({ text: input.text }),
        effects,
      });
      expect(contract.annotations).toEqual({
        readOnlyHint: effects.readOnly,
        destructiveHint: effects.mayDiscardData || effects.executesForeignCode || effects.mutatesDevice,
        idempotentHint: effects.idempotent,
        openWorldHint: effects.openWorld,
      });
    });
  }

  it('should refuse readOnly with each mutating flag, and foreign code that runs nowhere', () => {
    for (const flag of ['mutatesSession', 'writesFilesystem', 'mayDiscardData', 'mutatesDevice'] as const) {
      expect(() =>
        defineTool({
          ...echoDefinition,
          produces: 'result',
          run: async (input: { text: string }) => ({ text: input.text }),
          effects: { ...pure, mutatesSession: false, readOnly: true, [flag]: true },
        }),
      ).toThrow(new RegExp(`readOnly contradicts ${flag}`));
    }
    expect(() => defineTool({ ...echoDefinition, effects: { ...pure, executesForeignCode: true } })).toThrow(
      /executesForeignCode needs launchesProcess or openWorld/,
    );
    expect(() =>
      defineTool({ ...echoDefinition, effects: { ...pure, unexpected: true } as unknown as ToolEffects }),
    ).toThrow(/unknown flags: unexpected/);
  });

  it('should refuse an Evidence tool that does not declare mutatesSession', () => {
    expect(() => defineTool({ ...echoDefinition, effects: { ...pure, mutatesSession: false } })).toThrow(
      /must declare mutatesSession/,
    );
  });
});

describe('union inputs', () => {
  const byName = z.object({
    kind: z.literal('name').describe('Select by symbol name.'),
    name: z.string().min(1).describe('Symbol name.'),
  });
  const byAddress = z.object({
    kind: z.literal('address').describe('Select by address.'),
    address: z
      .string()
      .regex(/^0x[0-9a-f]+$/)
      .describe('Hex address.'),
  });
  const unionDefinition = {
    name: 'locate_symbol',
    title: 'Locate symbol',
    description: 'Locates a symbol by name or by address and returns what was selected.',
    input: z.union([byName, byAddress]),
    result: z.object({ selected: z.string() }),
    examples: [
      { input: { kind: 'name' as const, name: 'main' } },
      { input: { kind: 'address' as const, address: '0x10' } },
    ],
    effects: pure,
    produces: 'result' as const,
    run: async (input: { kind: 'name'; name: string } | { kind: 'address'; address: string }) => ({
      selected: input.kind === 'name' ? input.name : input.address,
    }),
  };

  it('should accept a union of described objects and run either member', async () => {
    const contract = defineTool(unionDefinition);
    expect(await executeTool(contract, { kind: 'address', address: '0x401000' }, context())).toEqual({
      kind: 'result',
      value: { selected: '0x401000' },
    });
    expect(await executeTool(contract, { kind: 'name', name: 'main' }, context())).toEqual({
      kind: 'result',
      value: { selected: 'main' },
    });
  });

  it('should refuse an input that matches no member with invalid_request', async () => {
    const contract = defineTool(unionDefinition);
    const error = await failure(executeTool(contract, { kind: 'address', address: 'main' }, context()));
    expect(error.code).toBe('invalid_request');
    // Not "(root): Invalid input": what the member that came closest refuses.
    expect(error.details['issues']).toEqual([{ path: 'address', message: expect.stringContaining('Invalid string') }]);
    expect(error.message).toMatch(/^Invalid input for locate_symbol: address: Invalid string/);
  });

  it('should refuse an undescribed property in any union member', () => {
    expect(() =>
      defineTool({
        ...unionDefinition,
        input: z.union([byName, z.object({ kind: z.literal('address'), address: z.string() })]),
      }),
    ).toThrow(/"kind" has no description/);
  });

  it('should refuse a root that is not an object or a union of objects', () => {
    expect(() => defineTool({ ...unionDefinition, input: z.string(), examples: [{ input: 'x' }] } as never)).toThrow(
      /must be an object schema or a union of object schemas/,
    );
  });
});

describe('effect presets', () => {
  it('should give RECORDS_EVIDENCE a session-mutating, idempotent, non-destructive effect set', () => {
    expect(() => validateEffects('preset', RECORDS_EVIDENCE)).not.toThrow();
    expect(Object.entries(NO_EFFECTS).filter(([, value]) => value)).toEqual([]);
    expect(
      Object.entries(RECORDS_EVIDENCE)
        .filter(([, value]) => value)
        .map(([key]) => key),
    ).toEqual(['mutatesSession', 'idempotent']);
    expect(deriveAnnotations(RECORDS_EVIDENCE)).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});
