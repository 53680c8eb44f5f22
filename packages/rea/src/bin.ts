#!/usr/bin/env node
// The `rea` executable. `--version` and `--help` are answered here without loading the CLI, the
// catalog or any provider: start-up cost is part of the interface. Everything else goes to the CLI,
// whose error boundary reports every failure; this file only guards against an installation so
// broken that the CLI itself cannot load (still one line, never a stack trace).
import { readPackageInfo } from './version.js';

// A reader that goes away (`rea --llms | head`) ends the output, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 0 : 1));

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;

if (only === '--version' || only === '-V') {
  process.stdout.write(`${readPackageInfo().version}\n`);
} else if (only === '--help' || only === '-h' || (argv.length === 0 && process.stdin.isTTY === true)) {
  const { HELP_TEXT } = await import('./help.js');
  process.stdout.write(HELP_TEXT);
} else {
  let status: number;
  try {
    const { main } = await import('./main.js');
    status = await main(argv);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    process.stderr.write(
      `rea: error [internal]: REA could not start: ${message}\n  remediation: Reinstall rea (npm install rea) and try again.\n`,
    );
    status = 1;
  }
  // Every output was flushed by the CLI; owned resources were released before main() returned.
  process.exit(status);
}
