import { Command, InvalidArgumentError, Option } from 'commander';
import type { Invocation } from '../invocation.js';

/** Parses `[host:]port` (default host 127.0.0.1); throws a usage error otherwise. */
export function parseListenAddress(value: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:]+\]|[^:]+):)?(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(port) || port > 65535) {
    throw new InvalidArgumentError(`expected [host:]port with a port from 0 to 65535, got "${value}".`);
  }
  const host = m[1] ? m[1].replace(/^\[|\]$/g, '') : '127.0.0.1';
  return { host, port };
}

/** The exit status of a server stopped by `signal`: 130 for SIGINT, 143 for SIGTERM. */
function interruptedStatus(signal: NodeJS.Signals): number {
  return signal === 'SIGTERM' ? 143 : 130;
}

/** `rea mcp`: the MCP server over stdio, or Streamable HTTP with `--http [host:]port`. */
export function mcpCommand(invocation: Invocation): Command {
  return new Command('mcp')
    .summary('run the MCP server (stdio, or --http)')
    .description(
      'Runs the MCP server. Without options it speaks JSON-RPC over stdin/stdout (how MCP clients launch it); with --http it serves Streamable HTTP on [host:]port (host defaults to 127.0.0.1). A non-loopback host needs --allow-host for each name clients use to reach it; requests naming any other Host are refused (DNS-rebinding protection).',
    )
    .addOption(new Option('--http <address>', '[host:]port to serve Streamable HTTP on').argParser(parseListenAddress))
    .addOption(
      new Option(
        '--allow-host <name>',
        'with --http: a host name clients use to reach a non-loopback address (repeatable); required to bind one, and any other Host is refused',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  rea mcp\n  rea mcp --http 7331\n  rea mcp --http 0.0.0.0:7331 --allow-host build-box.lan',
    )
    .action(async (options: { http?: { host: string; port: number }; allowHost?: string[] }) => {
      const signal = invocation.scope.signal;
      if (options.allowHost && !options.http) {
        throw new InvalidArgumentError('--allow-host applies to --http only.');
      }
      const outcome = options.http
        ? await invocation.host.serve({
            transport: 'http',
            ...options.http,
            allowedHosts: options.allowHost ?? [],
            signal,
          })
        : await invocation.host.serve({ transport: 'stdio', signal });
      // The server has cancelled its calls in flight and waited for their cleanup; if the signal
      // interrupted any, it ends as interrupted (128 + the signal's number), never as a success.
      const received = invocation.scope.received();
      if (received !== null && (outcome?.cancelledCalls ?? 0) > 0) invocation.exitCode = interruptedStatus(received);
    });
}
