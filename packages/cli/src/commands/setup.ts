import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, Option } from 'commander';
import { ReaError, throwIfAborted } from '@rea/evidence';
import type { JsonValue } from '@rea/evidence';
import { applyConfigWrite } from '../clients/apply.js';
import { CLIENT_IDS, CLIENTS } from '../clients/clients.js';
import type { ClientDefinition } from '../clients/clients.js';
import { readClientConfig } from '../clients/configFile.js';
import { renderUpdatedConfig } from '../clients/edit.js';
import type { CliIo, LaunchCommand } from '../host.js';
import type { Invocation } from '../invocation.js';
import { setupHopper } from '../hopper/command.js';

/** What `rea setup` will do to one client's file. */
export interface SetupPlanItem {
  client: string;
  name: string;
  file: string;
  /** create-file | add-entry | update-entry | unchanged | refused (the file is invalid; it is left alone) */
  action: 'create-file' | 'add-entry' | 'update-entry' | 'unchanged' | 'refused';
  before: Record<string, unknown> | null;
  /** REA's entry after setup (null when refused). */
  after: Record<string, unknown> | null;
  /** `exact`: only REA's entry changes; `normalized`: the file is re-serialized with the same content. */
  formatting: 'exact' | 'normalized';
  /** Why a refused file cannot be changed: reason, message, and where (line, column, pointer). */
  problem?: RefusedFile;
}

/** An invalid client file that setup leaves alone. */
type RefusedFile = {
  client: string;
  file: string;
  reason: string;
  message: string;
  line?: number;
  column?: number;
  pointer?: string;
};

interface PlannedItem extends SetupPlanItem {
  write: Parameters<typeof applyConfigWrite>[0] | null;
}

/** Clients whose configuration exists here: the file, or its own folder (not the home folder itself). */
function detectedClients(io: CliIo): ClientDefinition[] {
  return CLIENTS.filter((client) => {
    const file = client.file(io.home, io.platform, io.env);
    return existsSync(file) || (dirname(file) !== io.home && existsSync(dirname(file)));
  });
}

/**
 * The error for invalid client files that setup left alone (`configuration_invalid`, details.files);
 * `applied` says how many other files were written, and `outcome` (with --json) is the run's result.
 */
function refusal(refused: readonly RefusedFile[], applied: number, outcome?: JsonValue): ReaError {
  const where = refused.map((f) => `${f.file}${f.line !== undefined ? `:${f.line}:${f.column}` : ''} (${f.message})`);
  const written = applied > 0 ? `the other ${applied} file(s) were written` : 'nothing was written';
  return new ReaError('configuration_invalid', `Setup refused ${where.join('; ')}; ${written}.`, {
    details: { reason: 'invalid-client-config', files: [...refused], ...(outcome !== undefined ? { outcome } : {}) },
    remediation: 'Fix or move the named file (REA never rewrites a file it cannot parse), then run setup again.',
  });
}

/**
 * Plans setup for the given clients. An invalid file (unreadable, unparseable, wrong shape) is planned
 * as `refused` and blocks only its own client.
 */
export async function planSetup(
  io: CliIo,
  clients: readonly ClientDefinition[],
  launch: LaunchCommand,
): Promise<PlannedItem[]> {
  const states = await Promise.all(
    clients.map((c) => readClientConfig(c, c.file(io.home, io.platform, io.env), launch)),
  );
  return states.map((state): PlannedItem => {
    if (state.status === 'invalid') {
      const problem: RefusedFile = {
        client: state.client.id,
        file: state.file,
        reason: state.reason,
        message: state.message,
        ...(state.position ? { line: state.position.line, column: state.position.column } : {}),
        ...(state.pointer !== null ? { pointer: state.pointer } : {}),
      };
      const base = { client: state.client.id, name: state.client.name, file: state.file };
      return { ...base, action: 'refused', before: null, after: null, formatting: 'exact', problem, write: null };
    }
    const rendered = renderUpdatedConfig(state, launch);
    const action =
      state.status === 'aligned'
        ? 'unchanged'
        : state.text === null
          ? 'create-file'
          : state.entry === null
            ? 'add-entry'
            : 'update-entry';
    return {
      client: state.client.id,
      name: state.client.name,
      file: state.file,
      action,
      before: state.entry,
      after: rendered.entry,
      formatting: rendered.formatting,
      write:
        action === 'unchanged'
          ? null
          : {
              client: state.client,
              file: state.file,
              before: state.text,
              beforeDocument: state.document,
              after: rendered.text,
              entry: rendered.entry,
            },
    };
  });
}

function describePlan(items: readonly SetupPlanItem[]): string {
  const lines: string[] = [];
  for (const item of items) {
    lines.push(`${item.name}: ${item.file}`);
    if (item.action === 'unchanged') {
      lines.push('  unchanged (already registered)');
      continue;
    }
    if (item.problem !== undefined) {
      const at = item.problem.pointer !== undefined ? ` (${item.problem.pointer})` : '';
      lines.push(`  refused, left as it is: ${item.problem.message}${at}`);
      continue;
    }
    lines.push(
      `  ${item.action}${item.formatting === 'normalized' ? ' (the file will be re-serialized; its content is kept)' : ''}`,
    );
    lines.push(`  before: ${item.before === null ? '(no entry)' : JSON.stringify(item.before)}`);
    lines.push(`  after:  ${JSON.stringify(item.after)}`);
  }
  return `${lines.join('\n')}\n`;
}

async function confirm(io: CliIo, signal: AbortSignal, question = 'Apply these changes?'): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  const rl = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve(''));
    signal.addEventListener('abort', () => resolve(''), { once: true });
  });
  rl.close();
  if (io.stdin.isTTY !== true) io.stderr.write('\n');
  return /^\s*y(es)?\s*$/i.test(answer);
}

interface SetupOptions {
  client?: string[];
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
  hopper?: string;
  hopperDir?: string;
}

/** `rea setup`: registers REA with MCP clients (plan, confirm, back up, write atomically, verify). */
export function setupCommand(invocation: Invocation): Command {
  return new Command('setup')
    .summary("add or update REA's registration in MCP clients")
    .description(
      "Adds or updates REA's entry in the chosen MCP clients' configuration files. Prints the plan (file, REA's entry before and after), asks for confirmation (default No), backs each file up, writes atomically, keeps every other entry and the file's formatting where it can, and reads the file back to verify. Without --client it uses the clients configured on this machine. Running it again changes nothing.",
    )
    .addOption(
      new Option('--client <id>', `a client to set up, repeatable: ${CLIENT_IDS.join(', ')}`).argParser(
        (value: string, previous: string[] | undefined) => {
          if (!(CLIENT_IDS as readonly string[]).includes(value)) {
            throw new ReaError(
              'invalid_request',
              `Unknown client "${value}"; expected one of ${CLIENT_IDS.join(', ')}.`,
              {
                details: { issues: [{ path: 'client', message: 'unknown client' }] },
              },
            );
          }
          return [...(previous ?? []), value];
        },
      ),
    )
    .option('--dry-run', 'print the plan and change nothing')
    .option('--yes', 'apply without asking')
    .option('--json', 'print the plan and outcome as JSON')
    .option(
      '--hopper <package>',
      'install Hopper from a downloaded package (.zip; .deb or .tar.xz on Linux) instead of registering clients',
    )
    .option(
      '--hopper-dir <dir>',
      'where --hopper installs (new or empty; default ~/Applications/Hopper or ~/.local/opt/hopper)',
    )
    .action(async (options: SetupOptions) => {
      const { io, host, scope } = invocation;
      if (options.hopper !== undefined) {
        if (options.client) {
          throw new ReaError('invalid_request', '--hopper installs Hopper only; run setup --client separately.', {
            details: { issues: [{ path: 'client', message: 'not allowed with --hopper' }] },
          });
        }
        return setupHopper(invocation, { ...options, hopper: options.hopper }, () =>
          confirm(io, scope.signal, 'Install Hopper?'),
        );
      }
      if (options.hopperDir !== undefined) {
        throw new ReaError('invalid_request', '--hopper-dir needs --hopper <package>.', {
          details: { issues: [{ path: 'hopper-dir', message: 'requires --hopper' }] },
        });
      }
      const launch = host.launchCommand();
      const clients = options.client ? CLIENTS.filter((c) => options.client!.includes(c.id)) : detectedClients(io);
      const planned = await planSetup(io, clients, launch);
      const plan: SetupPlanItem[] = planned.map(({ write: _write, ...item }) => item);
      const changes = planned.filter((p) => p.write !== null);
      const refused = planned.flatMap((p) => (p.problem !== undefined ? [p.problem] : []));
      const emit = async (applied: boolean, backups: Array<string | null>, note: string): Promise<void> => {
        if (options.json) {
          const result = {
            launch_command: launch,
            dry_run: options.dryRun === true,
            applied,
            plan,
            backups: backups.filter((b) => b !== null),
            note,
          };
          // With a refused file, the run ends in that error, which carries the result (one JSON document).
          if (refused.length > 0) throw refusal(refused, applied ? changes.length : 0, result as unknown as JsonValue);
          await invocation.out(`${JSON.stringify(result, null, 2)}\n`);
        } else {
          await invocation.out(`${note}\n`);
        }
      };
      if (!options.json) await invocation.out(plan.length > 0 ? describePlan(plan) : '');
      if (clients.length === 0) {
        return emit(
          false,
          [],
          `No MCP client configuration found; choose clients with --client (${CLIENT_IDS.join(', ')}).`,
        );
      }
      // An invalid file is left alone and reported; it never keeps the other clients from being set up.
      if (refused.length === planned.length) throw refusal(refused, 0);
      if (changes.length === 0) {
        await emit(
          false,
          [],
          `Nothing to change: every ${refused.length > 0 ? 'other ' : ''}chosen client is already aligned.`,
        );
      } else if (options.dryRun) {
        await emit(false, [], 'Dry run: nothing was written.');
      } else if (!options.yes && !(await confirm(io, scope.signal))) {
        throwIfAborted(scope.signal, 'confirmation');
        return emit(false, [], 'Not applied (the answer was No). Pass --yes to apply without asking.');
      } else {
        throwIfAborted(scope.signal, 'confirmation');
        const backups: Array<string | null> = [];
        for (const item of changes) backups.push(await applyConfigWrite(item.write!));
        const saved = backups.filter((b): b is string => b !== null);
        await emit(
          true,
          backups,
          `Applied to ${changes.length} file(s) and verified.${saved.length > 0 ? ` Backups: ${saved.join(', ')}` : ''}`,
        );
        if (refused.length > 0) throw refusal(refused, changes.length);
        return;
      }
      if (refused.length > 0) throw refusal(refused, 0);
    });
}
