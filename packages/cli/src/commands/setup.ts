import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, Option } from 'commander';
import { ReaError, throwIfAborted } from '@rea/evidence';
import { applyConfigWrite } from '../clients/apply.js';
import { CLIENT_IDS, CLIENTS } from '../clients/clients.js';
import type { ClientDefinition } from '../clients/clients.js';
import { readClientConfig } from '../clients/configFile.js';
import { renderUpdatedConfig } from '../clients/edit.js';
import type { CliIo, LaunchCommand } from '../host.js';
import type { Invocation } from '../invocation.js';

/** What `rea setup` will do to one client's file. */
export interface SetupPlanItem {
  client: string;
  name: string;
  file: string;
  /** create-file | add-entry | update-entry | unchanged */
  action: 'create-file' | 'add-entry' | 'update-entry' | 'unchanged';
  before: Record<string, unknown> | null;
  after: Record<string, unknown>;
  /** `exact`: only REA's entry changes; `normalized`: the file is re-serialized with the same content. */
  formatting: 'exact' | 'normalized';
}

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

/** Plans setup for the given clients; refuses (`configuration_invalid`) when any file is invalid. */
export async function planSetup(
  io: CliIo,
  clients: readonly ClientDefinition[],
  launch: LaunchCommand,
): Promise<PlannedItem[]> {
  const states = await Promise.all(
    clients.map((c) => readClientConfig(c, c.file(io.home, io.platform, io.env), launch)),
  );
  const invalid = states.filter((s) => s.status === 'invalid');
  if (invalid.length > 0) {
    const files = invalid.map((s) => ({
      client: s.client.id,
      file: s.file,
      reason: s.reason,
      message: s.message,
      ...(s.position ? { line: s.position.line, column: s.position.column } : {}),
      ...(s.pointer !== null ? { pointer: s.pointer } : {}),
    }));
    const where = files.map((f) => `${f.file}${'line' in f ? `:${f.line}:${f.column}` : ''} (${f.message})`).join('; ');
    throw new ReaError('configuration_invalid', `Setup refused; nothing was written: ${where}.`, {
      details: { reason: 'invalid-client-config', files },
      remediation: 'Fix or move the named file (REA never rewrites a file it cannot parse), then run setup again.',
    });
  }
  return states.map((state) => {
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
      lines.push('  unchanged (already registered with this installation)');
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

async function confirm(io: CliIo, signal: AbortSignal): Promise<boolean> {
  io.stderr.write('Apply these changes? [y/N] ');
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
    .action(async (options: SetupOptions) => {
      const { io, host, scope } = invocation;
      const launch = host.launchCommand();
      const clients = options.client ? CLIENTS.filter((c) => options.client!.includes(c.id)) : detectedClients(io);
      const planned = await planSetup(io, clients, launch);
      const plan: SetupPlanItem[] = planned.map(({ write: _write, ...item }) => item);
      const changes = planned.filter((p) => p.write !== null);
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
      if (changes.length === 0) return emit(false, [], 'Nothing to change: every chosen client is already aligned.');
      if (options.dryRun) return emit(false, [], 'Dry run: nothing was written.');
      if (!options.yes && !(await confirm(io, scope.signal))) {
        throwIfAborted(scope.signal, 'confirmation');
        return emit(false, [], 'Not applied (the answer was No). Pass --yes to apply without asking.');
      }
      throwIfAborted(scope.signal, 'confirmation');
      const backups: Array<string | null> = [];
      for (const item of changes) backups.push(await applyConfigWrite(item.write!));
      const saved = backups.filter((b): b is string => b !== null);
      return emit(
        true,
        backups,
        `Applied to ${changes.length} file(s) and verified.${saved.length > 0 ? ` Backups: ${saved.join(', ')}` : ''}`,
      );
    });
}
