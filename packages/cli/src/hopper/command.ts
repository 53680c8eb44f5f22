import { ReaError, throwIfAborted } from '@rea/evidence';
import type { Invocation } from '../invocation.js';
import { installHopper } from './install.js';
import { defaultHopperTarget, HOPPER_DOWNLOAD_PAGE, planHopperInstall } from './plan.js';
import type { HopperInstallPlan } from './plan.js';

/** The options of `rea setup` that install Hopper. */
export interface HopperSetupOptions {
  hopper: string;
  hopperDir?: string;
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
}

function describe(plan: HopperInstallPlan): string {
  return [
    'Install Hopper Disassembler',
    `  package:    ${plan.package} (${plan.format}, local; nothing is downloaded)`,
    `  unpack with: ${plan.extractor}`,
    `  install to: ${plan.target}`,
    ...(plan.creates.length > 0 ? [`  creates:    ${plan.creates.join(', ')}`] : []),
    '  nothing else is written; HOPPER_LAUNCHER_PATH is printed for you to set',
    '',
  ].join('\n');
}

/**
 * `rea setup --hopper <package>`: plans installing Hopper from a local package into a per-user (or
 * the named) directory, asks for confirmation, then installs. REA never downloads Hopper: a URL or
 * `download` prints where to get it and changes nothing.
 */
export async function setupHopper(
  invocation: Invocation,
  options: HopperSetupOptions,
  confirm: () => Promise<boolean>,
): Promise<void> {
  const { io, scope } = invocation;
  const target = options.hopperDir ?? defaultHopperTarget(io.home, io.platform);
  if (options.hopper === 'download' || /^[a-z][a-z0-9+.-]*:\/\//i.test(options.hopper)) {
    if (!options.json) {
      await invocation.out(
        `Install Hopper Disassembler\n  1. download the package for ${io.platform} yourself from ${HOPPER_DOWNLOAD_PAGE}\n  2. run: rea setup --hopper <downloaded file> --hopper-dir ${target}\n`,
      );
    }
    throw new ReaError('capability_unavailable', 'REA does not download Hopper; nothing was fetched or changed.', {
      details: { reason: 'download-not-fetched', download_page: HOPPER_DOWNLOAD_PAGE, target },
      remediation: `Download Hopper from ${HOPPER_DOWNLOAD_PAGE}, then run rea setup --hopper <downloaded file>.`,
    });
  }
  const plan = planHopperInstall(options.hopper, target, io.cwd, io.platform);
  const emit = async (applied: boolean, note: string, launcher?: string): Promise<void> => {
    if (options.json) {
      const result = { hopper: plan, dry_run: options.dryRun === true, applied, launcher: launcher ?? null, note };
      await invocation.out(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      await invocation.out(`${note}\n`);
    }
  };
  if (!options.json) await invocation.out(describe(plan));
  if (options.dryRun) return emit(false, 'Dry run: nothing was written.');
  if (!options.yes && !(await confirm())) {
    throwIfAborted(scope.signal, 'confirmation');
    return emit(false, 'Not installed (the answer was No). Pass --yes to install without asking.');
  }
  throwIfAborted(scope.signal, 'confirmation');
  const installed = await installHopper(plan, invocation.host, scope.signal);
  await emit(
    true,
    `Installed Hopper in ${installed.target}. Set this in the MCP client's environment for REA:\n  HOPPER_LAUNCHER_PATH=${installed.launcher}`,
    installed.launcher,
  );
}
