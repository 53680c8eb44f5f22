import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isReaError, ReaError, throwIfAborted } from '@rea/evidence';
import type { CliHost } from '../host.js';
import type { HopperInstallPlan } from './plan.js';

/** What an install produced: the target and the launcher to put in `HOPPER_LAUNCHER_PATH`. */
export interface HopperInstallResult {
  target: string;
  launcher: string;
}

/** The error of an install cancelled while a tool was unpacking. */
function cancelled(): ReaError {
  return new ReaError('cancelled', 'Cancelled during hopper install.', { details: { phase: 'hopper install' } });
}

/** Runs an unpacking tool as a child that the abort signal terminates. */
function unpack(command: string, args: readonly string[], signal: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
    const onAbort = (): void => void child.kill('SIGTERM');
    signal.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(
        new ReaError('capability_unavailable', `Cannot run ${command}: ${error.message}.`, {
          details: { reason: 'extractor-missing', command },
          remediation: `Install ${command} (it unpacks this package format) or use another Hopper package format.`,
        }),
      );
    });
    child.once('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return reject(cancelled());
      if (code === 0) return resolvePromise();
      reject(
        new ReaError(
          'unsupported_target',
          `${command} could not unpack the package: ${stderr.trim() || `exit ${code}`}.`,
          {
            details: { reason: 'package-unreadable', command, exit_code: code },
            remediation: 'Download the package again; it may be damaged or of another format than its name says.',
          },
        ),
      );
    });
  });
}

/** The Hopper launcher inside an unpacked tree: a macOS bundle's `Contents/MacOS/hopper` or Linux `bin/Hopper`. */
function findLauncher(root: string, depth = 0): string | null {
  if (depth > 6) return null;
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (
      entry.isFile() &&
      /(^|\/)(Contents\/MacOS\/hopper|bin\/Hopper)$/.test(path) &&
      (statSync(path).mode & 0o111) !== 0
    ) {
      return path;
    }
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const found = findLauncher(join(root, entry.name), depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * Installs Hopper as planned: unpacks into a staging directory beside the target, checks it holds a
 * Hopper launcher, then renames it into place. On any failure or cancellation the staging directory
 * and every directory this call created are removed: the target is either complete or absent.
 */
export async function installHopper(
  plan: HopperInstallPlan,
  host: Pick<CliHost, 'extractZip'>,
  signal: AbortSignal,
): Promise<HopperInstallResult> {
  const createdRoot = plan.creates[0] ?? null;
  if (createdRoot) mkdirSync(dirname(plan.target), { recursive: true });
  let staging: string | null = null;
  let emptiedTarget = false;
  try {
    staging = mkdtempSync(join(dirname(plan.target), '.rea-hopper-staging-'));
    let root: string;
    if (plan.format === 'zip') {
      if (!host.extractZip) {
        throw new ReaError('capability_unavailable', 'This REA build cannot unpack ZIP packages.', {
          details: { reason: 'extractor-missing', format: 'zip' },
          remediation: 'Run setup through the rea-mcp package (npx rea-mcp setup --hopper <package>).',
        });
      }
      root = await host.extractZip(plan.package, staging, signal);
    } else {
      root = join(staging, 'root');
      mkdirSync(root, { mode: 0o755 });
      if (plan.format === 'deb') await unpack('dpkg-deb', ['-x', plan.package, root], signal);
      else await unpack('tar', ['-xJf', plan.package, '-C', root, '--no-same-owner'], signal);
    }
    throwIfAborted(signal, 'hopper install');
    const launcher = findLauncher(root);
    if (launcher === null) {
      throw new ReaError('unsupported_target', `${plan.package} holds no Hopper launcher.`, {
        details: { reason: 'no-launcher', package: plan.package },
        remediation:
          'Pass a Hopper package downloaded from the official download page (it holds Contents/MacOS/hopper or bin/Hopper).',
      });
    }
    const relativeLauncher = relative(root, launcher);
    try {
      rmdirSync(plan.target); // an empty directory the plan accepted; absent otherwise
      emptiedTarget = true;
    } catch {
      // absent
    }
    renameSync(root, plan.target);
    return { target: plan.target, launcher: join(plan.target, relativeLauncher) };
  } catch (error) {
    if (emptiedTarget) mkdirSync(plan.target, { recursive: true }); // put the empty directory back
    if (createdRoot) rmSync(createdRoot, { recursive: true, force: true });
    if (isReaError(error)) throw error;
    throw new ReaError('execution_failure', `Installing Hopper failed: ${(error as Error).message}.`, {
      details: { reason: 'install-failed', target: plan.target },
      remediation: 'Nothing was installed; check the install directory and run setup again.',
    });
  } finally {
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
}
