import { toDiagnostic } from '@rea/evidence';
import { createReaHost } from './host.js';

/**
 * `rea mcp` over stdio (and `rea` with no arguments when stdin is not a terminal), served without
 * loading the command-line program: MCP clients start this on every session, so start-up cost is
 * part of the interface. SIGINT and SIGTERM close the server like the CLI's `rea mcp` does: the calls
 * in flight are cancelled through their signal and their cleanup is awaited (bounded); the status is
 * then 130 (SIGINT) or 143 (SIGTERM) when calls were interrupted, 0 when the server was idle. A failure to start is one line on stderr with the exit status of
 * the CLI's table, never a stack trace. Resolves with the exit status.
 */
export async function serveStdio(): Promise<number> {
  const controller = new AbortController();
  let received: NodeJS.Signals | null = null;
  // The handlers stay until the server has closed: a repeated signal cannot cut its cleanup short.
  const stop = (signal: NodeJS.Signals): void => {
    if (received !== null) return;
    received = signal;
    process.stderr.write(`rea: ${signal}: cancelling the calls in flight and cleaning up…\n`);
    controller.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const outcome = await createReaHost().serve({ transport: 'stdio', signal: controller.signal });
    const cancelledCalls = outcome?.cancelledCalls ?? 0;
    // Stopped by a signal while calls were in flight: they were cancelled and cleaned up, but the
    // server's work was interrupted. Stopped idle (or by stdin ending), it stopped cleanly.
    if (received === null || cancelledCalls === 0) return 0;
    return received === 'SIGTERM' ? 143 : 130;
  } catch (error) {
    const { error: diagnostic } = toDiagnostic(error, 'mcp');
    process.stderr.write(`rea: error [${diagnostic.code}]: ${diagnostic.message}\n`);
    if (diagnostic.remediation) process.stderr.write(`  remediation: ${diagnostic.remediation}\n`);
    const { exitCodeFor } = await import('@rea/cli');
    return exitCodeFor(diagnostic.code);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
