import { toDiagnostic } from '@rea/evidence';
import { createReaHost } from './host.js';

/**
 * `rea mcp` over stdio (and `rea` with no arguments when stdin is not a terminal), served without
 * loading the command-line program: MCP clients start this on every session, so start-up cost is
 * part of the interface. SIGINT and SIGTERM close the server like the CLI's `rea mcp` does; a failure
 * to start is one line on stderr with the exit status of the CLI's table, never a stack trace.
 * Resolves with the exit status.
 */
export async function serveStdio(): Promise<number> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    await createReaHost().serve({ transport: 'stdio', signal: controller.signal });
    return 0;
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
