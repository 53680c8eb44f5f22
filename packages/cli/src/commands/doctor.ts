import { Command } from 'commander';
import { CLIENTS } from '../clients/clients.js';
import { readClientConfig } from '../clients/configFile.js';
import type { ClientConfigState } from '../clients/configFile.js';
import type { CliIo, LaunchCommand, ProviderStatus } from '../host.js';
import type { Invocation } from '../invocation.js';
import { BUILT_IN_SETTINGS, describeSettings, providerSettings, readConfig } from '@rea/provider-kit';
import type { ProbeResult, Provider, SettingDescription } from '@rea/provider-kit';
import { toDiagnostic } from '@rea/evidence';
import type { Diagnostic } from '@rea/evidence';

/** The minimum Node.js version REA supports. */
export const MIN_NODE = [20, 19] as const;

/** One client's registration as `rea doctor --json` reports it. */
export interface ClientReport {
  client: string;
  name: string;
  file: string;
  format: 'json' | 'toml';
  status: ClientConfigState['status'];
  reason: string;
  message: string;
  position: { line: number; column: number } | null;
  pointer: string | null;
  registered: LaunchCommand | null;
  /** Whether a server is live is unknown to a file check. */
  server: 'unknown';
}

/** The whole `rea doctor --json` document. */
export interface DoctorReport {
  package: { name: string; version: string };
  node: { version: string; required: string; supported: boolean };
  platform: string;
  launch_command: LaunchCommand;
  /** Whether REA's environment settings are valid; the first invalid one otherwise (as its diagnostic). */
  configuration: { valid: true } | { valid: false; error: Diagnostic['error'] };
  /** Every setting REA and its providers read, sorted by variable, and whether it is set. */
  settings: Array<SettingDescription & { set: boolean }>;
  providers: readonly ProviderStatus[];
  clients: ClientReport[];
}

function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/** Reads every supported client's configuration (never writing) and classifies REA's entry. */
export async function inspectClients(io: CliIo, expected: LaunchCommand): Promise<ClientConfigState[]> {
  return Promise.all(
    CLIENTS.map((client) => readClientConfig(client, client.file(io.home, io.platform, io.env), expected)),
  );
}

/** Validates the settings REA and its providers read (the same check the server makes at start). */
function checkConfiguration(io: CliIo, providers: readonly Provider[]): DoctorReport['configuration'] {
  try {
    readConfig(io.env as NodeJS.ProcessEnv, providerSettings(providers));
    return { valid: true };
  } catch (error) {
    return { valid: false, error: toDiagnostic(error).error };
  }
}

/** Each provider's readiness from its probe (cheap; never starts an engine), sorted by id. */
export async function providerStatuses(providers: readonly Provider[], signal: AbortSignal): Promise<ProviderStatus[]> {
  const statuses = await Promise.all(
    providers.map(async (provider): Promise<ProviderStatus> => {
      let probe: ProbeResult;
      try {
        probe = await provider.probe({ signal });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        probe = {
          status: 'unavailable',
          reason: `probe failed: ${reason}`,
          remediation: 'Reinstall the provider package.',
        };
      }
      const ready = probe.status === 'ready';
      return {
        id: provider.id,
        name: provider.name,
        kind: provider.kind,
        ready,
        reason: probe.status === 'ready' ? (probe.version ? `engine ${probe.version}` : null) : probe.reason,
        remediation: probe.status === 'ready' ? null : probe.remediation,
      };
    }),
  );
  return statuses.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Builds the doctor report. Read-only: probes providers without starting engines, reads config files. */
export async function doctorReport(invocation: Invocation): Promise<DoctorReport> {
  const { host, io } = invocation;
  const expected = host.launchCommand();
  const [list, states] = await Promise.all([host.loadProviders(), inspectClients(io, expected)]);
  const providers = await providerStatuses(list, invocation.scope.signal);
  const declared = [...BUILT_IN_SETTINGS, ...providerSettings(list)];
  return {
    package: { ...host.package },
    node: { version: process.version, required: `>=${MIN_NODE.join('.')}`, supported: nodeSupported(process.version) },
    platform: `${io.platform}-${process.arch}`,
    launch_command: expected,
    configuration: checkConfiguration(io, list),
    settings: describeSettings(declared).map((setting) => ({
      ...setting,
      set: io.env[setting.variable] !== undefined,
    })),
    providers,
    clients: states.map((s) => ({
      client: s.client.id,
      name: s.client.name,
      file: s.file,
      format: s.client.format,
      status: s.status,
      reason: s.reason,
      message: s.message,
      position: s.position ? { line: s.position.line, column: s.position.column } : null,
      pointer: s.pointer,
      registered: s.registered,
      server: 'unknown',
    })),
  };
}

function human(report: DoctorReport): string {
  const lines = [
    `${report.package.name} ${report.package.version} on ${report.platform}`,
    `node ${report.node.version} (${report.node.supported ? 'supported' : `unsupported: needs ${report.node.required}`})`,
    `launch command: ${[report.launch_command.command, ...report.launch_command.args].join(' ')}`,
    report.configuration.valid
      ? 'configuration: valid'
      : `configuration: invalid — ${report.configuration.error.message}\n             remediation: ${report.configuration.error.remediation}`,
    `settings set: ${
      report.settings
        .filter((s) => s.set)
        .map((s) => s.variable)
        .join(', ') || 'none'
    } (of ${report.settings.length}; --json lists each with its accepted form)`,
    '',
    'providers:',
    ...report.providers.map(
      (p) =>
        `  ${(p.ready ? 'ready' : 'not ready').padEnd(9)} ${p.id} (${p.kind})${p.reason ? ` — ${p.reason}` : ''}${!p.ready && p.remediation ? `\n             remediation: ${p.remediation}` : ''}`,
    ),
    '',
    'MCP clients (live server state: unknown):',
    ...report.clients.map(
      (c) =>
        `  ${c.status.padEnd(8)} ${c.name.padEnd(15)} ${c.file}${c.position ? `:${c.position.line}:${c.position.column}` : ''}\n             ${c.message}`,
    ),
  ];
  const fixable = report.clients.filter((c) => c.status === 'stale' || c.status === 'missing').length;
  if (fixable > 0) lines.push('', 'Run `rea setup` to register REA with these clients (it shows the plan first).');
  return `${lines.join('\n')}\n`;
}

/** `rea doctor [--json]`: the read-only health report. */
export function doctorCommand(invocation: Invocation): Command {
  return new Command('doctor')
    .summary('read-only health report: node, providers, MCP client registrations')
    .description(
      "Reports the Node.js version, each provider's readiness with reason and remediation (never starting an engine), and REA's registration in Claude Code, Claude Desktop, Codex, Cursor, Gemini CLI and Windsurf: aligned, stale (a different command vector), missing, or invalid (with file and position). Reads only: it changes no configuration (like every command, it keeps compiled code in the code cache unless REA_CODE_CACHE is off).",
    )
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }) => {
      const report = await doctorReport(invocation);
      await invocation.out(options.json ? `${JSON.stringify(report, null, 2)}\n` : human(report));
    });
}
