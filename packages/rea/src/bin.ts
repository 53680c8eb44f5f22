#!/usr/bin/env node
// The `rea` executable. `--version` and `--help` are answered here without loading the CLI, the
// catalog or any provider: start-up cost is part of the interface. Everything else goes to the CLI,
// whose error boundary reports every failure; this file only guards against an installation so
// broken that the CLI itself cannot load (still one line, never a stack trace).
//
// What runs is dist/bin.cjs, this module and the few it imports bundled as one CommonJS script
// (scripts/postbuild.mjs): Node.js starts a CommonJS entry without its ES module loader, about 10 ms
// sooner for every command. The stdio server's ES modules are imported when `rea mcp` asks for them.
import { setFlagsFromString } from 'node:v8';
import { readPackageInfo } from './version.js';

// A reader that goes away (`rea --llms | head`) ends the output, not with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 0 : 1));

/** V8's interrupt budget for a command that runs once: 8 times V8's default (67,584 bytes of bytecode). */
const COMMAND_INTERRUPT_BUDGET = 8 * 67_584;

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;

/** Answers `--version` and `--help` here, starts the stdio server, or hands over to the command line. */
async function run(): Promise<void> {
  if (only === '--version' || only === '-V') {
    process.stdout.write(`${readPackageInfo().version}\n`);
  } else if (only === '--help' || only === '-h' || (argv.length === 0 && process.stdin.isTTY === true)) {
    const { HELP_TEXT } = await import('./help.js');
    process.stdout.write(HELP_TEXT);
  } else {
    // `rea mcp` over stdio, and `rea` with no arguments on a pipe (how MCP clients launch it), skip the
    // command-line program entirely.
    const stdioServer = (argv.length === 1 && argv[0] === 'mcp') || (argv.length === 0 && process.stdin.isTTY !== true);
    // A command that runs once keeps V8's young generation at its initial size (two 1 MiB semi-spaces)
    // instead of letting it grow to 16 MiB each: an analysis allocates in bursts while building the
    // tables it keeps, and a grown young generation only holds more garbage between scavenges (up to
    // 30 MiB of resident memory on a large binary) for no saving in CPU time (bench/cli, bench/native).
    // V8 reads the growth factor whenever it considers growing, so setting it here takes effect. A server
    // (`rea mcp`, over stdio or HTTP) keeps V8's default: it answers call after call, and the tools that
    // build many small objects per call (an APK's central directory, a DEX's class list) then scavenge a
    // 1 MiB young generation ten times a call, copying what the call still holds each time (bench/android,
    // warm server: inspect_android_package with its signatures verified takes 0.71x the time). The price
    // is memory: a grown young generation holds up to 2 x 16 MiB (open_binary + binary_overview of bash
    // peaks at 124 MiB instead of 96 MiB, in the same time).
    const youngGeneration = '--semi-space-growth-factor=1';
    const once = !stdioServer && argv[0] !== 'mcp';
    if (once) {
      setFlagsFromString(youngGeneration);
      // A command that runs once also lets V8 optimize a function only after 8 times the work it
      // normally waits for (its interrupt budget, read when a function's feedback is allocated). Under
      // the default budget V8 optimizes functions a command calls only briefly (75 of them during
      // `rea analyze /usr/bin/ls`, 28 with the larger budget), on the second core while the command
      // runs, and process exit waits for a compile in progress: the analysis took 0.93x the time and
      // 0.85x the CPU with the larger budget, and that of /usr/bin/bash 0.90x (bench/cli). The loops that
      // decode instructions still reach the optimizing compiler early in a sweep. A budget given on
      // node's command line wins (NODE_OPTIONS cannot carry one).
      const given = process.execArgv.some((a) => /^--interrupt[-_]budget(?:=|$)/.test(a));
      if (!given) setFlagsFromString(`--interrupt-budget=${COMMAND_INTERRUPT_BUDGET}`);
    }
    let status: number;
    // Until the CLI takes over the signals, nothing has started: a signal just ends the process as
    // cancelled (in the error model's shape when JSON was asked for).
    const early = (signal: NodeJS.Signals): void => {
      const json = argv.some(
        (a, i) => a === '--json' || a === '--format=json' || (a === '--format' && argv[i + 1] === 'json'),
      );
      const message = `Cancelled by ${signal} before anything started.`;
      if (json) {
        const error = {
          code: 'cancelled',
          message,
          operation: null,
          retryable: true,
          remediation: 'Call again when ready.',
          details: { phase: 'startup', signal },
        };
        process.stdout.write(`${JSON.stringify({ error }, null, 2)}\n`);
      } else {
        process.stderr.write(`rea: error [cancelled]: ${message}\n`);
      }
      process.exit(130);
    };
    process.on('SIGINT', early);
    process.on('SIGTERM', early);
    try {
      if (stdioServer) {
        const { serveStdio } = await import('./mcpStdio.js');
        // serveStdio() installs its own handlers synchronously, before its first await.
        process.off('SIGINT', early);
        process.off('SIGTERM', early);
        status = await serveStdio();
      } else {
        const { loadCommandLine } = await import('./commandLine.js');
        const commandLine = loadCommandLine(/^[a-z][a-z0-9-]{0,63}$/.test(argv[0] ?? '') ? argv[0]! : '', {
          // V8 stamps its cached code with a hash of its flags, and refuses code stamped with another.
          // Starting a worker thread (the JavaScript analysis, an AArch64 engine load, a large archive's
          // digests) puts the growth factor back to V8's minimum of 2 as the worker's heap is set up: a
          // script compiled, or a cache written, after that would be refused by every later run.
          ...(once ? { flags: () => setFlagsFromString(youngGeneration) } : {}),
        });
        // main() installs the CLI's own handlers synchronously, before its first await.
        process.off('SIGINT', early);
        process.off('SIGTERM', early);
        status = await commandLine.main(argv);
        // A command that succeeded has printed its answer: the next run starts faster. (A failed one, a
        // misspelt command among them, is not worth a cache; nor is help or a schema, which runs none of
        // the command's own code, and any word followed by --help succeeds; `rea setup` writes exactly
        // what its plan names in the user's home, and nothing else.)
        const described = argv.some((a) => a === '--help' || a === '-h' || a === '--schema');
        if (status === 0 && argv[0] !== 'setup' && !described) commandLine.keep();
      }
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
      process.stderr.write(
        `rea: error [internal]: REA could not start: ${message}\n  remediation: Reinstall REA (npm install rea-mcp) and try again.\n`,
      );
      status = 1;
    }
    // Every output was flushed by the CLI; owned resources were released before main() returned.
    process.exit(status);
  }
}

// An event loop that empties while run() is still waiting means a command that never finished (a bug):
// it must not pass for a success. (The ES module entry's top-level await ended such a process with
// status 13; so does this.)
let settled = false;
process.once('beforeExit', () => {
  if (settled) return;
  process.stderr.write(
    'rea: error [internal]: REA stopped with the command unfinished: nothing was left to wait on.\n',
  );
  process.exitCode = 13;
});
void run().then(
  () => {
    settled = true;
  },
  (error: unknown) => {
    settled = true;
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    process.stderr.write(`rea: error [internal]: REA could not start: ${message}\n`);
    process.exitCode = 1;
  },
);
