import { z } from 'zod';
import { AnalysisProfileSchema, ProviderIdentitySchema, Sha256HexSchema } from '@rea/evidence';
import { defineTool, parseProviderChoice, readActiveTarget } from '@rea/provider-kit';
import type { ProviderChoice } from '@rea/provider-kit';
import type { ChoiceOrigin } from '../session.js';
import { hostOf } from '../host.js';
import { NO_EFFECTS } from './effects.js';

const TargetSchema = z.strictObject({
  path: z.string(),
  format: z.string(),
  sha256: Sha256HexSchema,
  size: z.number().int().nonnegative(),
});

/** `open_binary`: selects the active target and binds it to one deep-analysis provider. */
export const openBinaryTool = defineTool({
  name: 'open_binary',
  title: 'Open a target',
  description:
    'Makes a local file the active target of this connection and binds it to one deep-analysis provider. ' +
    'provider_id is a concrete provider id or "auto" (the single ready external engine, else the embedded ' +
    'engine); omitted, REA_ANALYSIS_PROVIDER or auto applies. A run id is allocated before any provider ' +
    'starts. Re-opening the same target with the same provider reuses the open session; opening another ' +
    'target keeps retained Evidence. An open that names no readable file or selects no provider leaves ' +
    'the current target open. Calls that need a target and were sent while it runs wait for it, and fail ' +
    'with its error if it fails. Returns the target identity, the binding and the run.',
  produces: 'result',
  input: z.strictObject({
    path: z.string().min(1).describe('Path of the local file to analyse.'),
    provider_id: z
      .string()
      .min(1)
      .optional()
      .describe('A concrete provider id (see binary_session.analysis_provider_candidates) or "auto".'),
  }),
  result: z.strictObject({
    reused: z.boolean(),
    target: TargetSchema,
    analysis_provider_binding: z.strictObject({
      provider: ProviderIdentitySchema,
      selection_source: z.enum(['argument', 'environment', 'auto']),
      analysis_profile: AnalysisProfileSchema,
    }),
    analysis_run: z.strictObject({ run_id: z.string(), started_at: z.string() }),
  }),
  examples: [
    {
      input: { path: '/usr/bin/true', provider_id: 'auto' },
      description: 'Open a system binary, provider chosen automatically.',
    },
  ],
  effects: { ...NO_EFFECTS, mutatesSession: true, launchesProcess: true, idempotent: true },
  clientFeatures: { optional: ['progress'] },
  run: async (input, context) => {
    const host = hostOf(context);
    let choice: ProviderChoice = { kind: 'auto' };
    let origin: ChoiceOrigin = 'default';
    if (input.provider_id !== undefined) {
      choice = parseProviderChoice(input.provider_id, 'argument');
      origin = 'argument';
    } else if (host.config.analysisProvider) {
      choice = host.config.analysisProvider;
      origin = 'environment';
    }
    context.progress.report('reading the target');
    const target = await readActiveTarget(input.path, context.signal);
    const { reused } = await host.session.open(target, choice, origin, context.signal, context.progress);
    const binding = host.session.binding!;
    return {
      reused,
      target: host.session.target!,
      analysis_provider_binding: {
        provider: binding.provider,
        selection_source: binding.selection_source,
        analysis_profile: binding.analysis_profile,
      },
      analysis_run: host.session.run!,
    };
  },
});

/**
 * `close_binary`: ordered after earlier opens and closes; drains the other calls in flight (a grace
 * period, then cancellation), closes the provider and clears the ledger.
 */
export const closeBinaryTool = defineTool({
  name: 'close_binary',
  title: 'Close the target and clear the session',
  description:
    'Closes the bound provider and clears every retained Evidence record of this connection, also when no ' +
    'target is open. Export a bundle first if the records are needed later. Calls in flight: open_binary and ' +
    'close_binary run one after another in arrival order; other calls get up to 2 s to finish (their results ' +
    'stand), then those still running are cancelled and answer cancelled (details.reason "session-closed"); ' +
    'drained_calls counts them. Fails with cleanup_incomplete, listing the owned resource kinds that remain, ' +
    'when cleanup could not finish. Returns what was closed and how many records were cleared.',
  produces: 'result',
  input: z.strictObject({}),
  result: z.strictObject({
    closed_target: TargetSchema.nullable(),
    closed_provider: z.string().nullable(),
    cleared_records: z.number().int().nonnegative(),
    drained_calls: z.number().int().nonnegative(),
  }),
  examples: [{ input: {}, description: 'Close whatever is open and clear the ledger.' }],
  effects: { ...NO_EFFECTS, mutatesSession: true, mayDiscardData: true, idempotent: true },
  run: async (_input, context) => {
    const host = hostOf(context);
    return host.session.close(context.signal, host.currentCall(context));
  },
});
