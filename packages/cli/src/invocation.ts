import { createCallSupervisor } from '@rea/provider-kit';
import type { ClientFeature, InvocationHostFacts, SessionView, ToolContext } from '@rea/provider-kit';
import type { CliHost, CliIo } from './host.js';
import { createSessionLedger } from '@rea/evidence';
import type { SessionLedger } from '@rea/evidence';
import { createStderrLogger, createTerminalProgress, plainTerminal } from './progress.js';
import type { TerminalProgress } from './progress.js';
import { createSignalScope } from './signals.js';
import type { SignalScope } from './signals.js';

/** The state one `rea …` invocation shares between its commands: signals, ledger, streams. */
export interface Invocation {
  host: CliHost;
  io: CliIo;
  scope: SignalScope;
  /** The invocation's Evidence ledger: what its commands produced, for composite commands and export. */
  ledger: SessionLedger;
  /** The exit status the command chose; the error boundary overrides it on failure. */
  exitCode: number;
  /** Writes to stdout and resolves once the chunk is handed to the OS (so exiting cannot truncate it). */
  out(text: string): Promise<void>;
  /** Writes a line to stderr unless quiet was requested. */
  note(text: string): void;
  /** A tool context for one run, wired to this invocation's signal and ledger; no target unless given. */
  toolContext(quiet: boolean, session?: SessionView): ToolContext & { progress: TerminalProgress };
}

const CLI_FEATURES: ReadonlySet<ClientFeature> = new Set<ClientFeature>(['progress']);

/**
 * What session tools (`binary_session`) learn about this invocation's host: the package, the entry the
 * clients register, the catalog and its digest as `rea mcp` would advertise it with this environment.
 */
function invocationHostFacts(host: CliHost, io: CliIo): InvocationHostFacts {
  return {
    package: host.package,
    get entryPath() {
      return host.entryPath?.() ?? null;
    },
    tools: () => host.loadTools(),
    providers: () => host.loadProviders(),
    catalog: async () => {
      const [{ advertiseCatalog }, { readConfig }] = await Promise.all([
        import('@rea/schema'),
        import('@rea/provider-kit'),
      ]);
      const profile = readConfig(io.env as NodeJS.ProcessEnv).mcpInputSchemaProfile;
      const catalog = advertiseCatalog(await host.loadTools(), profile);
      return {
        digest: catalog.digest,
        profile: catalog.profile,
        tool_count: catalog.tools.length,
        reduced: [...catalog.reduced],
      };
    },
  };
}

/** Starts an invocation: installs the signal handlers (removed by `scope.dispose()`). */
export function createInvocation(host: CliHost, io: CliIo): Invocation {
  const scope = createSignalScope(io.signals, (message) => io.stderr.write(`rea: ${message}\n`));
  const ledger = createSessionLedger();
  const facts = invocationHostFacts(host, io);
  const invocation: Invocation = {
    host,
    io,
    scope,
    ledger,
    exitCode: 0,
    out: (text) =>
      new Promise<void>((resolve) => {
        const stream = io.stdout as { write(chunk: string, cb: () => void): boolean };
        stream.write(text, () => resolve());
      }),
    note: (text) => {
      io.stderr.write(`${text}\n`);
    },
    toolContext(quiet, session) {
      return {
        signal: scope.signal,
        progress: createTerminalProgress(io.stderr, quiet, plainTerminal(io.env)),
        logger: createStderrLogger(io.stderr, quiet, false),
        ledger,
        clientFeatures: CLI_FEATURES,
        invocationHost: facts,
        session: session ?? { target: null, binding: null, run_id: null },
        platform: io.platform,
        // One per call: executeTool closes it when the call ends.
        supervisor: createCallSupervisor(),
      };
    },
  };
  return invocation;
}
