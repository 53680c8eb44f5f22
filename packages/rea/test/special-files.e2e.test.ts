// A path that names no regular file or folder, a FIFO above all, must get an answer: every tool that
// takes a local path (`path`, `local_path`, `source_root`, a list of `apk_paths`, at any depth and in
// any branch of a union) is called over a real MCP connection with a FIFO that nothing writes to (opening one to read waits for a writer), and must
// answer with a typed error other than internal, not wait forever. The command
// line's `rea analyze` does the same. A file whose read fails (EIO: /proc/self/mem) is target_unavailable
// with what to do, not an internal error.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REA_BIN } from './httpEntry.js';

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
}

/** Input properties that name a local file or folder: they get the FIFO, wherever they are nested. */
const LOCAL_PATHS = new Set(['path', 'local_path', 'source_root']);
/** Input properties that list local files: they get a list of the FIFO. */
const LOCAL_PATH_LISTS = new Set(['apk_paths']);
/** Tools whose `path` names a file on an Android device, not on this machine. */
const DEVICE_PATHS = new Set(['list_android_directory', 'pull_android_file']);

/** Walks a tool's input schema: `$ref`s resolved against its `$defs`, unions by the branch that takes a path. */
class InputWalk {
  constructor(
    private readonly root: JsonSchema,
    private readonly fifo: string,
  ) {}

  private resolved(schema: JsonSchema | undefined): JsonSchema | undefined {
    const name = schema?.$ref?.replace(/^#\/\$defs\//, '');
    return name !== undefined ? this.root.$defs?.[name] : schema;
  }

  /** The property's value when it names local files itself, else undefined. */
  private own(name: string, schema: JsonSchema | undefined): unknown {
    if (LOCAL_PATHS.has(name) && schema?.type === 'string') return this.fifo;
    if (LOCAL_PATH_LISTS.has(name) && schema?.type === 'array' && schema.items?.type === 'string') return [this.fifo];
    return undefined;
  }

  /** True when the schema holds a local path property, at any depth, in any branch (a recursive `$ref` ends the walk). */
  takesLocalPath(given: JsonSchema | undefined, seen: ReadonlySet<string> = new Set()): boolean {
    if (given === undefined || (given.$ref !== undefined && seen.has(given.$ref))) return false;
    const inner = given.$ref !== undefined ? new Set([...seen, given.$ref]) : seen;
    const schema = this.resolved(given);
    if (schema?.anyOf?.some((branch) => this.takesLocalPath(branch, inner))) return true;
    if (this.takesLocalPath(schema?.items, inner)) return true;
    return Object.entries(schema?.properties ?? {}).some(
      ([name, property]) =>
        this.own(name, this.resolved(property)) !== undefined || this.takesLocalPath(property, inner),
    );
  }

  /** A value its schema accepts, with the FIFO for every local path (required or not) and fillers elsewhere. */
  fill(given: JsonSchema | undefined): unknown {
    const schema = this.resolved(given);
    if (schema?.anyOf !== undefined)
      return this.fill(schema.anyOf.find((branch) => this.takesLocalPath(branch)) ?? schema.anyOf[0]);
    if (schema?.const !== undefined) return schema.const;
    if (schema?.enum !== undefined) return schema.enum[0];
    switch (schema?.type) {
      case 'integer':
      case 'number':
        return 1;
      case 'boolean':
        return false;
      case 'array':
        return this.takesLocalPath(schema.items) ? [this.fill(schema.items)] : [];
      case 'object': {
        const names = new Set(schema.required ?? []);
        for (const [name, property] of Object.entries(schema.properties ?? {}))
          if (this.own(name, this.resolved(property)) !== undefined || this.takesLocalPath(property)) names.add(name);
        return Object.fromEntries(
          [...names].map((name) => {
            const property = this.resolved(schema.properties?.[name]);
            return [name, this.own(name, property) ?? this.fill(property)];
          }),
        );
      }
      default:
        return 'x';
    }
  }
}

const ANSWER_WITHIN_MS = 20_000;

/**
 * Runs the built `rea` with `args`, held to file modes: root enters any folder, so as root the command
 * runs without the capabilities that override file permissions (util-linux's setpriv), and a folder's
 * mode applies to it as to its owner.
 */
function reaHeldToModes(args: string[]) {
  const rea = [process.execPath, REA_BIN, ...args];
  const [command, ...rest] =
    process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--', ...rea] : rea;
  return spawnSync(command!, rest, {
    encoding: 'utf8',
    timeout: ANSWER_WITHIN_MS,
    env: { ...process.env, REA_CODE_CACHE: 'off' },
  });
}

describe('a FIFO or an unreadable special file given as a path', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rea-special-files-'));
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'rea-special-files', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [REA_BIN, 'mcp'], stderr: 'ignore' }),
    );
  });
  afterAll(async () => {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should get a typed error, not internal and not silence, from every tool that takes a local path', async () => {
    const { tools } = await client.listTools();
    const taking = tools.filter((tool) => {
      const schema = tool.inputSchema as JsonSchema;
      return !DEVICE_PATHS.has(tool.name) && new InputWalk(schema, '').takesLocalPath(schema);
    });
    // inspect_artifact, inspect_binary_layout, open_binary, the Android and JavaScript tools, a device
    // push (local_path) and install (apk_paths), a source-to-bundle comparison (source_root), a
    // screenshot comparison (a union of a path and a retained capture), the bundle import and export.
    expect(taking.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['compare_web_screenshots', 'install_android_package', 'inspect_artifact']),
    );
    expect(taking.length).toBeGreaterThanOrEqual(17);
    const unanswered: string[] = [];
    const untyped: string[] = [];
    const misnamed: string[] = [];
    const codes = new Map<string, string>();
    for (const tool of taking) {
      // Each tool its own FIFO: a tool that writes to its path (an export) may replace it with its file.
      const fifo = join(dir, `${tool.name}.fifo`);
      execFileSync('mkfifo', [fifo]);
      const input = new InputWalk(tool.inputSchema as JsonSchema, fifo).fill(tool.inputSchema as JsonSchema) as Record<
        string,
        unknown
      >;
      let timer: NodeJS.Timeout | undefined;
      const answer = await Promise.race([
        client.callTool({ name: tool.name, arguments: input }) as Promise<{
          isError?: boolean;
          content: Array<{ text?: string }>;
        }>,
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ANSWER_WITHIN_MS))),
      ]);
      clearTimeout(timer);
      if (answer === null) {
        unanswered.push(tool.name);
        continue;
      }
      // Refused with a typed error other than internal, or (an export to the path) answered.
      if (answer.isError !== true) continue;
      const text = answer.content.map((c) => c.text ?? '').join('\n');
      let code: string | undefined;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      } catch {
        code = undefined;
      }
      if (code === undefined || code === 'internal') {
        untyped.push(`${tool.name}: ${text.slice(0, 300)}`);
        continue;
      }
      // The FIFO is there: no tool may call it missing, or report its own failure to run.
      if (code === 'not_found' || code === 'execution_failure') misnamed.push(`${tool.name}: ${code}`);
      codes.set(tool.name, code);
    }
    expect(unanswered).toEqual([]);
    expect(untyped).toEqual([]);
    expect(misnamed).toEqual([]);
    // Reached through a union and through a list of paths: refused as what the path names.
    expect(codes.get('compare_web_screenshots')).toBe('unsupported_target');
    expect(codes.get('install_android_package')).toBe('unsupported_target');
  }, 600_000);

  it('should be refused by `rea analyze` as a special file', () => {
    const fifo = join(dir, 'analyze.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = spawnSync(process.execPath, [REA_BIN, 'analyze', fifo, '--format', 'json'], {
      encoding: 'utf8',
      timeout: ANSWER_WITHIN_MS,
    });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(10);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('unsupported_target');
    expect(error.message).toContain('neither a regular file nor a directory');
  }, 60_000);

  it('should refuse /dev/null as unsupported_target alike in rea analyze, the artifact tools and the binary tools', () => {
    const answers = ['analyze', 'inspect-artifact', 'inspect-binary-layout', 'open-binary'].map((command) => {
      const run = spawnSync(process.execPath, [REA_BIN, command, '/dev/null', '--format', 'json'], {
        encoding: 'utf8',
        timeout: ANSWER_WITHIN_MS,
      });
      const error = (JSON.parse(run.stdout) as { error: { code: string; details: Record<string, unknown> } }).error;
      return [command, run.status, error.code, error.details['format'], error.details['reason']];
    });
    expect(answers).toEqual([
      ['analyze', 10, 'unsupported_target', 'special', 'not-a-file'],
      ['inspect-artifact', 10, 'unsupported_target', 'special', 'not-a-file'],
      ['inspect-binary-layout', 10, 'unsupported_target', 'special', 'not-a-file'],
      ['open-binary', 10, 'unsupported_target', 'special', 'not-a-file'],
    ]);
  }, 120_000);

  it.each([
    ['inspect-artifact'],
    ['inspect-binary-layout'],
    ['analyze'],
    ['inspect-android-package'],
    ['import-evidence-bundle'],
  ])(
    'should answer %s of a file that fails to read (EIO from /proc/self/mem) with target_unavailable',
    (command) => {
      const run = spawnSync(process.execPath, [REA_BIN, command, '/proc/self/mem', '--format', 'json'], {
        encoding: 'utf8',
        timeout: ANSWER_WITHIN_MS,
      });
      expect(run.status).toBe(9);
      const error = (JSON.parse(run.stdout) as { error: { code: string; remediation: string } }).error;
      expect(error.code).toBe('target_unavailable');
      expect(error.remediation).toContain('regular file that can be read');
    },
    60_000,
  );

  it('should answer access_denied for a package under a folder the user may not enter', () => {
    const closed = join(dir, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    const apk = join(closed, 'app.apk');
    writeFileSync(apk, 'PK');
    chmodSync(closed, 0o000);
    try {
      const run = reaHeldToModes(['inspect-android-package', apk, '--format', 'json']);
      const error = (JSON.parse(run.stdout) as { error: { code: string } }).error;
      expect(error.code).toBe('access_denied');
      expect(run.status).toBe(14);
    } finally {
      chmodSync(closed, 0o700);
    }
  }, 60_000);

  it('should leave out of a source comparison a folder it may not enter, and say so', () => {
    const app = join(dir, 'built');
    const source = join(dir, 'checkout');
    const closed = join(source, 'closed');
    mkdirSync(app);
    writeFileSync(join(app, 'main.js'), 'console.log("built");\n');
    mkdirSync(closed, { recursive: true });
    writeFileSync(join(source, 'kept.js'), 'export const kept = 1;\n');
    writeFileSync(join(closed, 'hidden.js'), 'export const hidden = 1;\n');
    const analysis = spawnSync(process.execPath, [REA_BIN, 'analyze-javascript-application', app, '--format', 'json'], {
      encoding: 'utf8',
      timeout: ANSWER_WITHIN_MS,
    });
    expect(analysis.status).toBe(0);
    const input = join(dir, 'compare-input.json');
    writeFileSync(input, JSON.stringify({ application: JSON.parse(analysis.stdout), source_root: source }));
    chmodSync(closed, 0o000);
    try {
      const run = reaHeldToModes(['compare-source-to-bundle', '--input', `@${input}`, '--format', 'json']);
      expect(run.status).toBe(0);
      const record = JSON.parse(run.stdout) as {
        normalized_result: { not_in_bundle: string[] };
        coverage: { status: string };
        limitations: { message: string }[];
      };
      expect(record.normalized_result.not_in_bundle).toEqual(['kept.js']);
      expect(record.coverage.status).toBe('partial');
      expect(record.limitations.map((l) => l.message).join('\n')).toContain('closed (EACCES)');
    } finally {
      chmodSync(closed, 0o700);
    }
  }, 60_000);
});
