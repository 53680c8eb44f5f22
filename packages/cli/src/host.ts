import type { AnyToolContract, Provider, SettingsDeclaration } from '@rea/provider-kit';
import type { SignalSource } from './signals.js';
import type { TextStream } from './progress.js';

/** The installed package the CLI speaks for (the `rea` meta-package). */
export interface CliPackageInfo {
  name: string;
  version: string;
}

/** How `rea mcp` serves: stdio, or Streamable HTTP on host:port. Stops when `signal` aborts. */
export type ServeRequest =
  | { transport: 'stdio'; signal: AbortSignal }
  | {
      transport: 'http';
      host: string;
      port: number;
      /** Host names clients may use besides loopback (`--allow-host`); a non-empty list allows a non-loopback bind. */
      allowedHosts?: readonly string[];
      signal: AbortSignal;
    };

/** One provider's readiness as `rea doctor` reports it. Probing never starts an engine. */
export interface ProviderStatus {
  id: string;
  name: string;
  /** `deep` for deep-analysis engines, `tools` for tool-only providers. */
  kind: string;
  ready: boolean;
  reason: string | null;
  remediation: string | null;
}

/** The command an MCP client runs to start REA's server. */
export interface LaunchCommand {
  command: string;
  args: string[];
}

/**
 * What the composition root hands the CLI. The CLI never imports a provider: the tools, the provider
 * probes and the server all come through here, and each is loaded only by the commands that use it.
 */
export interface CliHost {
  package: CliPackageInfo;
  /** The complete sorted tool catalog. */
  loadTools(): Promise<readonly AnyToolContract[]>;
  /** Every provider, deep and tools-only (for `--target`, `rea analyze` and `rea doctor`). Creating one starts nothing. */
  loadProviders(): Promise<readonly Provider[]>;
  /**
   * The settings declarations of every provider (`Provider.settings`), without creating one: with REA's
   * own, what a command checks before it runs. Without it, they are read from `loadProviders()`.
   */
  providerSettings?(): readonly SettingsDeclaration[];
  /**
   * The named tools of the catalog (names it lacks are left out), loading only the providers that
   * contribute them; without it, commands that use a few tools load the complete catalog.
   */
  loadToolsFor?(names: readonly string[]): Promise<readonly AnyToolContract[]>;
  /**
   * The providers a command using only the named tools needs (every deep provider, and those that
   * contribute the tools); without it, such commands load every provider.
   */
  loadProvidersFor?(names: readonly string[]): Promise<readonly Provider[]>;
  /**
   * Runs the MCP server until it stops or `request.signal` aborts. A server stopped by the signal
   * resolves with how many calls in flight it cancelled (after waiting for their cleanup).
   */
  serve(request: ServeRequest): Promise<void | { cancelledCalls: number }>;
  /** The command vector clients should register (setup writes it, doctor compares to it). */
  launchCommand(): LaunchCommand;
  /** The path of the running entry script, as session tools report it (null when unknown). */
  entryPath?(): string | null;
  /**
   * Unpacks a ZIP archive into a fresh directory under `parentDirectory` (safe paths only, executable
   * bits kept; removed again on failure) and resolves to that directory. Used by `rea setup --hopper`.
   */
  extractZip?(path: string, parentDirectory: string, signal: AbortSignal): Promise<string>;
}

/** The process-facing side of one invocation. Defaults to the real process. */
export interface CliIo {
  stdout: TextStream;
  stderr: TextStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** The user's home directory (HOME), where client configuration files live. */
  home: string;
  platform: NodeJS.Platform;
  signals: SignalSource;
}
