import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSessionLedger, isReaError, normalizeError } from '@rea/evidence';
import type { SessionLedger } from '@rea/evidence';
import {
  createCallSupervisor,
  createProcessSupervisor,
  createProgressReporter,
  createProviderBinding,
  createProviderRegistry,
  describeCandidates,
  executeTool,
  isDeepProvider,
  providerSettings,
  readConfig,
  requireCapability,
  sortCatalog,
  validateProvider,
} from '@rea/provider-kit';
import type {
  ActiveTarget,
  DeepSession,
  LineageObservation,
  ProcessSupervisor,
  Provider,
  ProviderBinding,
  ReaConfig,
  ToolOutcome,
} from '@rea/provider-kit';
import { quietToolContext } from '@rea/test-helpers';
import { canObserveProcesses, descendants, newProcesses } from './processTable.js';
import type { SeenProcess } from './processTable.js';

/** A target file for the suite to open: it computes size and SHA-256 itself. */
export interface ContractTarget {
  path: string;
  format: string;
  architecture?: string;
}

/** What a capability check receives. For a deep provider the target is open for the whole suite. */
export interface CapabilityCheckContext {
  provider: Provider;
  /** The open session (deep providers with a target), else null. */
  session: DeepSession | null;
  /** The binding built from the open session, else null. */
  binding: ProviderBinding | null;
  target: ActiveTarget | null;
  signal: AbortSignal;
  supervisor: ProcessSupervisor;
  /**
   * Runs one of the provider's tools through `executeTool` with the session bound and a call supervisor
   * of its own (`ToolContext.supervisor`), under `options.signal` when given (the suite's otherwise).
   * Evidence it returns is retained in the suite's ledger, so later calls can name it by a retained
   * reference. Whatever the outcome, the call must leave nothing running: a process the call started
   * through its supervisor that is still alive, or has live descendants, once the call has settled fails
   * the call with an error naming it.
   */
  runTool(name: string, input: unknown, options?: { signal?: AbortSignal }): Promise<ToolOutcome>;
  /**
   * The lineage of the processes the last `runTool` call started through its supervisor, observed
   * after the call settled (empty when it started none).
   */
  lastCallLineage(): readonly LineageObservation[];
}

/** Options for {@link describeProviderContract}. */
export interface ProviderContractOptions {
  /** The target a deep provider opens (built lazily, e.g. compiled at test time). */
  target?: ContractTarget | (() => ContractTarget | Promise<ContractTarget>);
  /**
   * One check per declared capability (exactly the declared set): resolves when the capability works.
   * A check must use the provider (`runTool`, `session`, `binding` or `provider`); one that touches none
   * of them could never fail, and the suite fails it.
   */
  capabilityProbes: Readonly<Record<string, (context: CapabilityCheckContext) => Promise<void>>>;
  /** Operations outside the declared capabilities: each must reject with `capability_unavailable` naming it. */
  undeclared?: Readonly<Record<string, (context: CapabilityCheckContext) => Promise<unknown>>>;
  /** When non-null, the engine is absent: the checks that need it are skipped and this reason is printed. */
  skipReason?: string | null;
  /** Configuration passed to `open` (default: the defaults of REA's and the provider's declared settings). */
  config?: ReaConfig;
  /**
   * Maps a tool's advertised example input onto this test's fixtures (a real file for an example path,
   * a reference retained through `runTool` for an example reference). Default: the example as
   * advertised. Every example must then succeed; a typed refusal fails the suite.
   */
  exampleInput?: (tool: string, input: unknown, context: CapabilityCheckContext) => unknown;
  /** Receives each example's outcome, e.g. to remove a directory the example created. */
  afterExample?: (tool: string, outcome: ToolOutcome) => void | Promise<void>;
}

const GENERIC_UNDECLARED = 'contract-suite-undeclared-capability';

function describeTarget(spec: ContractTarget): ActiveTarget {
  const bytes = readFileSync(spec.path);
  return {
    path: spec.path,
    format: spec.format,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
  };
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to be refused');
}

function noop(): void {}

/** Throws when a settled call's supervisor still owns something or a process it started is alive. */
function requireNothingLeft(
  tool: string,
  supervisor: ProcessSupervisor,
  lineage: readonly LineageObservation[],
  strays: readonly SeenProcess[],
): void {
  const left = supervisor.owned().map((resource) => `${resource.kind} ${resource.id}`);
  for (const stray of strays) left.push(`process ${stray.pid} (${stray.comm})`);
  for (const observation of lineage) {
    if (observation.status !== 'verified') continue;
    if (observation.launcher_alive) left.push(`process ${observation.launcher.pid} (started through the supervisor)`);
    for (const descendant of observation.descendants) left.push(`process ${descendant.pid} (its descendant)`);
  }
  if (left.length > 0) throw new Error(`The call of ${tool} left ${left.join(', ')} behind after it settled.`);
}

/** Wraps a check context so that it records whether the check used the provider at all. */
function watchUse(context: CapabilityCheckContext): { context: CapabilityCheckContext; used: () => boolean } {
  let used = false;
  const watched = { ...context };
  for (const key of ['runTool', 'session', 'binding', 'provider'] as const) {
    const value = context[key];
    Object.defineProperty(watched, key, {
      enumerable: true,
      get: () => {
        used = true;
        return value;
      },
    });
  }
  return { context: watched, used: () => used };
}

/**
 * The provider contract every provider package runs: identity and capabilities are well formed, the
 * probe never starts an engine (no new process outlives it, observed in the host process table), every
 * declared capability works (by the provider's own checks, each of which must use the provider),
 * undeclared ones refuse with `capability_unavailable`, every tool example runs to a result (a typed
 * refusal fails), and close leaves no owned resource (no process, temp directory, socket or mount).
 * `makeProvider` is called once.
 */
export function describeProviderContract(
  name: string,
  makeProvider: () => Provider | Promise<Provider>,
  options: ProviderContractOptions,
): void {
  describe(`provider contract: ${name}`, () => {
    const skip = options.skipReason ?? null;
    if (skip !== null) console.warn(`provider contract ${name}: engine checks skipped: ${skip}`);
    const engineIt = skip === null ? it : it.skip;
    const state: {
      provider?: Provider;
      target: ActiveTarget | null;
      session: DeepSession | null;
      binding: ProviderBinding | null;
      supervisor: ProcessSupervisor;
      controller: AbortController;
      baseline: Map<string, SeenProcess>;
      opened: boolean;
      ledger: SessionLedger;
    } = {
      target: null,
      session: null,
      binding: null,
      supervisor: createProcessSupervisor(),
      controller: new AbortController(),
      baseline: new Map(),
      opened: false,
      ledger: createSessionLedger(),
    };

    let lastCall: readonly LineageObservation[] = [];
    const context = (): CapabilityCheckContext => {
      const provider = state.provider!;
      return {
        provider,
        session: state.session,
        binding: state.binding,
        target: state.target,
        signal: state.controller.signal,
        supervisor: state.supervisor,
        runTool: async (toolName, input, runOptions = {}) => {
          const tool = provider.tools().find((t) => t.name === toolName);
          if (!tool) throw new Error(`${provider.id} contributes no tool named ${toolName}`);
          const supervisor = createCallSupervisor();
          // Observed independently of the supervisor: also a process the tool started by other means.
          const before = canObserveProcesses() ? descendants() : null;
          const toolContext = quietToolContext({
            session: { target: state.target, binding: state.binding, run_id: state.session ? 'run_contract' : null },
            signal: runOptions.signal ?? state.controller.signal,
            progress: createProgressReporter({ send: noop }),
            ledger: state.ledger,
            supervisor,
          });
          try {
            const outcome = await executeTool(tool, input, toolContext);
            if (outcome.kind === 'evidence') state.ledger.retain(outcome.record);
            return outcome;
          } finally {
            lastCall = supervisor.lineage();
            const strays = before ? newProcesses(before, descendants()) : [];
            requireNothingLeft(toolName, supervisor, lastCall, strays);
          }
        },
        lastCallLineage: () => lastCall,
      };
    };

    /** The target spec, or a plain ELF descriptor when the provider needs none. */
    const targetSpec = async (): Promise<ContractTarget> => {
      if (!options.target) return { path: '', format: 'elf' };
      return typeof options.target === 'function' ? options.target() : options.target;
    };

    /** Opens the target once (deep providers with a target), for the capability checks. */
    const ensureOpen = async (): Promise<void> => {
      const provider = state.provider!;
      if (state.opened || !isDeepProvider(provider) || !options.target) return;
      state.opened = true;
      state.target = describeTarget(await targetSpec());
      state.session = await provider.open(state.target, {
        signal: state.controller.signal,
        supervisor: state.supervisor,
        runId: 'run_contract',
        progress: createProgressReporter({ send: noop }),
        config: options.config ?? readConfig({}, providerSettings([provider])),
      });
      state.binding = createProviderBinding(provider, state.session, 'argument');
    };

    beforeAll(async () => {
      state.baseline = canObserveProcesses() ? descendants() : new Map();
      state.provider = await makeProvider();
    });

    afterAll(async () => {
      state.controller.abort();
      await state.session?.close(new AbortController().signal).catch(() => undefined);
      await state.supervisor.closeAll({ graceMs: 500 }).catch(() => undefined);
    });

    it('should have a valid identity, kind, capabilities and tool contracts', () => {
      const provider = state.provider!;
      expect(() => validateProvider(provider)).not.toThrow();
      const tools = provider.tools();
      expect(() => sortCatalog([...tools])).not.toThrow();
      for (const tool of tools) {
        expect(tool.annotations).toBeDefined();
        expect(tool.output).toBeDefined();
      }
    });

    it('should probe without starting an engine', async () => {
      const provider = state.provider!;
      const observe = canObserveProcesses();
      const before = observe ? descendants() : new Map<string, SeenProcess>();
      const result = await provider.probe({ signal: new AbortController().signal });
      if (result.status === 'unavailable') {
        expect(result.reason.trim()).not.toBe('');
        expect(result.remediation.trim()).not.toBe('');
      } else {
        expect(result.status).toBe('ready');
      }
      if (observe) {
        const outlived = newProcesses(before, descendants());
        expect(outlived.map((p) => `${p.pid} ${p.comm}`)).toEqual([]);
      }
    });

    engineIt('should probe ready where the engine is present', async () => {
      expect(await state.provider!.probe()).toMatchObject({ status: 'ready' });
    });

    it('should give a check for exactly the declared capabilities', () => {
      const declared = [...state.provider!.capabilities].sort();
      expect(Object.keys(options.capabilityProbes).sort()).toEqual(declared);
      for (const capability of Object.keys(options.undeclared ?? {})) expect(declared).not.toContain(capability);
    });

    it('should report target support as supported, unsupported or unknown', async () => {
      const provider = state.provider!;
      const spec = await targetSpec();
      const target = spec.architecture
        ? { format: spec.format, architecture: spec.architecture }
        : { format: spec.format };
      const support = provider.supportsTarget ? provider.supportsTarget(target) : 'unknown';
      expect(['supported', 'unsupported', 'unknown']).toContain(support);
      if (isDeepProvider(provider)) {
        // Discovery reports the same answer the provider gives.
        const [candidate] = describeCandidates(createProviderRegistry([provider]), new Map(), target, provider.port);
        expect(candidate?.target_support).toBe(support);
      }
    });

    engineIt('should refuse to open when the signal is already aborted, starting nothing', async () => {
      const provider = state.provider!;
      if (!isDeepProvider(provider)) {
        expect((provider as { open?: unknown }).open).toBeUndefined();
        return;
      }
      if (!options.target) throw new Error(`deep provider ${provider.id} needs a target for the contract suite`);
      const spec = await targetSpec();
      const aborted = new AbortController();
      aborted.abort();
      const supervisor = createProcessSupervisor();
      try {
        const error = await refusal(
          provider.open(describeTarget(spec), {
            signal: aborted.signal,
            supervisor,
            runId: 'run_contract_aborted',
            progress: createProgressReporter({ send: noop }),
            config: options.config ?? readConfig({}, providerSettings([provider])),
          }),
        );
        // Hosts normalise at their boundary, so a platform AbortError counts as cancellation.
        expect(normalizeError(error).code).toBe('cancelled');
        expect(supervisor.owned()).toEqual([]);
      } finally {
        await supervisor.closeAll({ graceMs: 500 }).catch(() => undefined);
      }
    });

    for (const capability of Object.keys(options.capabilityProbes).sort()) {
      engineIt(`should provide the declared capability ${capability}`, async () => {
        await ensureOpen();
        const { context: watched, used } = watchUse(context());
        await options.capabilityProbes[capability]!(watched);
        if (!used()) {
          throw new Error(
            `The check for ${capability} used neither runTool, session, binding nor provider: it cannot fail.`,
          );
        }
      });
    }

    for (const capability of Object.keys(options.undeclared ?? {}).sort()) {
      engineIt(`should refuse the undeclared capability ${capability} with capability_unavailable`, async () => {
        await ensureOpen();
        const error = await refusal(options.undeclared![capability]!(context()));
        expect(isReaError(error)).toBe(true);
        expect(error).toMatchObject({ code: 'capability_unavailable', details: { capability } });
      });
    }

    engineIt('should run every tool example to a result', async () => {
      await ensureOpen();
      const provider = state.provider!;
      const failures: string[] = [];
      for (const tool of provider.tools()) {
        for (const [index, example] of tool.examples.entries()) {
          try {
            const input = options.exampleInput
              ? await options.exampleInput(tool.name, example.input, context())
              : example.input;
            const outcome = await context().runTool(tool.name, input);
            await options.afterExample?.(tool.name, outcome);
          } catch (error) {
            const failure = isReaError(error) ? `${error.code}: ${error.message}` : `untyped: ${String(error)}`;
            failures.push(`${tool.name} example ${index}: ${failure}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });

    it('should refuse a capability it never declared through requireCapability', () => {
      const provider = state.provider!;
      let error: unknown;
      try {
        requireCapability(provider, GENERIC_UNDECLARED);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({
        code: 'capability_unavailable',
        details: { capability: GENERIC_UNDECLARED, provider_id: provider.id },
      });
    });

    engineIt('should close leaving no owned resource', async () => {
      await ensureOpen();
      if (state.session) {
        await state.session.close(new AbortController().signal);
        state.session = null;
      }
      // What the provider itself left, before any backstop cleanup by the host.
      expect(state.supervisor.owned()).toEqual([]);
      for (const observation of state.supervisor.lineage()) {
        if (observation.status === 'verified') {
          expect({ alive: observation.launcher_alive, descendants: observation.descendants }).toEqual({
            alive: false,
            descendants: [],
          });
        }
      }
      if (canObserveProcesses()) {
        const left = newProcesses(state.baseline, descendants());
        expect(left.map((p) => `${p.pid} ${p.comm}`)).toEqual([]);
      }
      await expect(state.supervisor.closeAll()).resolves.toBeUndefined();
    });
  });
}
