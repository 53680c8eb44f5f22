import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEvidence } from '@rea/evidence';
import { processAlive, withTempDir } from '@rea/test-helpers';
import { FIXTURE_CLI, hasStack, run, start } from './run.js';

const cli = (...args: string[]) => run(FIXTURE_CLI, args);

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 1200 && !existsSync(path); i += 1) await new Promise((r) => setTimeout(r, 25));
  // The marker is written in one call; give the write a moment to complete.
  await new Promise((r) => setTimeout(r, 25));
}

describe('rea CLI: commands generated from contracts', () => {
  it('should list hand-written and kebab-case generated commands in help', async () => {
    const result = await cli('--help');
    expect(result.code).toBe(0);
    for (const name of ['analyze', 'doctor', 'setup', 'mcp', 'catalog', 'inspect-evidence-bundle']) {
      expect(result.stdout).toMatch(new RegExp(`\\n  ${name} `));
    }
    for (const name of ['hash-text', 'echo-input', 'wait-for-cancel', 'fail-internal']) {
      expect(result.stdout).toContain(`  ${name} `);
    }
    expect(result.stdout).not.toContain('hash_text');
  });

  it('should derive flags and the positional from the input schema', async () => {
    const result = await cli('hash-text', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: rea hash-text [options] [text]');
    expect(result.stdout).toMatch(/--algorithm <choice>.*choices: "sha256", "sha1"/);
    expect(result.stdout).toContain('--repeat <number>');
    expect(result.stdout).toContain('--upper');
    expect(result.stdout).toContain('--no-upper');
    expect(result.stdout).toMatch(/--tags <value>.*\(repeatable\)/);
    expect(result.stdout).toMatch(/--options <json>.*\(JSON, or @file\.json\)/s);
    expect(result.stdout).not.toContain('Given through --input only');
  });

  it('should take an object property as JSON, inline or from a file, as --input would carry it', async () => {
    await withTempDir(async (dir) => {
      const viaInput = await cli('hash-text', 'abc', '--input', '{"options":{"salt":"xyz"}}', '--format', 'json');
      const inline = await cli('hash-text', 'abc', '--options', '{"salt":"xyz"}', '--format', 'json');
      writeFileSync(join(dir, 'options.json'), '{"salt":"xyz"}');
      const fromFile = await run(FIXTURE_CLI, ['hash-text', 'abc', '--options', '@options.json', '--format', 'json'], {
        cwd: dir,
      });
      const digest = (stdout: string) =>
        (JSON.parse(stdout) as { normalized_result: { digest: string } }).normalized_result.digest;
      expect([viaInput.code, inline.code, fromFile.code]).toEqual([0, 0, 0]);
      expect(digest(inline.stdout)).toBe(createHash('sha256').update('abcxyz').digest('hex'));
      expect(digest(fromFile.stdout)).toBe(digest(viaInput.stdout));
      // The flag overrides what --input gives, as every flag does.
      const both = await cli(
        'hash-text',
        'abc',
        '--input',
        '{"options":{"salt":"no"}}',
        '--options',
        '{"salt":"xyz"}',
        '--format',
        'json',
      );
      expect(digest(both.stdout)).toBe(digest(inline.stdout));
      const missing = await run(FIXTURE_CLI, ['hash-text', 'abc', '--options', '@absent.json'], { cwd: dir });
      expect(missing.code).toBe(3);
      expect(missing.stderr).toContain(`The --options file ${join(dir, 'absent.json')} does not exist.`);
      const broken = await cli('hash-text', 'abc', '--options', '{salt');
      expect(broken.code).toBe(2);
      expect(broken.stderr).toContain('The --options value is not valid JSON');
      // A value of the wrong shape is the contract's to refuse, with the property's path.
      const wrong = await cli('hash-text', 'abc', '--options', '[1]', '--format', 'json');
      expect(wrong.code).toBe(2);
      expect(JSON.parse(wrong.stdout)).toMatchObject({ error: { code: 'invalid_request' } });
    });
  });

  it('should print the input JSON Schema with --schema', async () => {
    const result = await cli('hash-text', '--schema');
    expect(result.code).toBe(0);
    const schema = JSON.parse(result.stdout) as {
      type: string;
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(schema.type).toBe('object');
    expect(Object.keys(schema.properties).sort()).toEqual(['algorithm', 'options', 'repeat', 'tags', 'text', 'upper']);
    expect(schema.required).toEqual(['text']);
  });

  it('should print a machine-readable manifest with --llms', async () => {
    const result = await cli('--llms');
    expect(result.code).toBe(0);
    const manifest = JSON.parse(result.stdout) as {
      version: string;
      exit_codes: Record<string, number>;
      commands: Array<{ command: string; tool: string; positional: string | null; flags: Array<{ flag: string }> }>;
      builtin_commands: Array<{ command: string }>;
    };
    expect(manifest.version).toBe('9.8.7');
    expect(manifest.exit_codes['success']).toBe(0);
    expect(manifest.exit_codes['cancelled']).toBe(130);
    expect(manifest.commands.map((c) => c.command)).toEqual([
      'describe-target',
      'echo-input',
      'fail-internal',
      'hash-text',
      'wait-for-cancel',
    ]);
    const hash = manifest.commands.find((c) => c.tool === 'hash_text')!;
    expect(hash.positional).toBe('text');
    expect(hash.flags.map((f) => f.flag)).toEqual([
      '--text',
      '--algorithm',
      '--repeat',
      '--upper',
      '--tags',
      '--options',
    ]);
    expect(manifest.builtin_commands.map((c) => c.command)).toContain('doctor');
  });

  it('should print exactly the Evidence record with --format json', async () => {
    const result = await cli(
      'hash-text',
      'hello',
      '--algorithm',
      'sha1',
      '--repeat',
      '2',
      '--upper',
      '--tags',
      'a',
      '--tags',
      'b',
      '--format',
      'json',
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const record = parseEvidence(JSON.parse(result.stdout));
    expect(record.operation).toBe('hash_text');
    expect(record.normalized_result).toEqual({
      algorithm: 'sha1',
      digest: createHash('sha1').update('HELLOHELLO').digest('hex'),
      length: 10,
      tags: ['a', 'b'],
    });
  });

  it('should take the whole input from --input @file and let flags override it', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'input.json');
      writeFileSync(file, JSON.stringify({ text: 'abc', repeat: 5, options: { salt: 'x' } }));
      const result = await run(
        FIXTURE_CLI,
        ['hash-text', '--input', '@input.json', '--repeat', '2', '--format', 'json'],
        { cwd: dir },
      );
      expect(result.code).toBe(0);
      const record = parseEvidence(JSON.parse(result.stdout));
      expect((record.normalized_result as { digest: string }).digest).toBe(
        createHash('sha256').update('abcabcx').digest('hex'),
      );
    });
  });

  it('should print a readable summary with the evidence id, coverage and limitations by default', async () => {
    const json = await cli('hash-text', 'hello', '--format', 'json');
    const id = (JSON.parse(json.stdout) as { evidence_id: string }).evidence_id;
    const result = await cli('hash-text', 'hello');
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(`hash_text  ${id}`);
    expect(result.stdout).toMatch(/coverage: +complete/);
    expect(result.stdout).toContain('- fixture: Computed by the test fixture.');
    expect(result.stdout).toContain(`digest: ${createHash('sha256').update('hello').digest('hex')}`);
  });

  it('should coerce scalar flags and print plain results', async () => {
    const on = await cli('echo-input', '/x', '--count', '3', '--verbose-mode', '--format', 'json');
    expect(JSON.parse(on.stdout)).toEqual({ echoed: { path: '/x', count: 3, verbose_mode: true } });
    const off = await cli('echo-input', '--path', '/y', '--no-verbose-mode', '--format', 'json');
    expect(JSON.parse(off.stdout)).toEqual({ echoed: { path: '/y', verbose_mode: false } });
  });

  it('should print the version', async () => {
    const result = await cli('--version');
    expect(result).toMatchObject({ code: 0, stdout: '9.8.7\n' });
  });

  it('should serve MCP over stdio when started without arguments and stdin is not a terminal', async () => {
    // The fixture host has no server: reaching it proves the route (capability_unavailable is status 5).
    const result = await cli();
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('The fixture has no server.');
  });
});

describe('rea CLI: --target and --provider', () => {
  it('should open the target with the auto-selected provider, run the tool, and release what the provider owned', async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, 'target.bin');
      writeFileSync(file, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
      const result = await cli('describe-target', '--target', file, '--format', 'json');
      expect(result.code).toBe(0);
      const described = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(described).toMatchObject({
        format: 'elf',
        sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
        size: 8,
        provider: 'fixture-deep',
        selection_source: 'auto',
      });
      expect(described['run_id']).toMatch(/^run_/);
      expect(existsSync(described['owned_dir'] as string)).toBe(false);
    });
  });

  it('should apply the shared provider choice parser and policy to --provider and REA_ANALYSIS_PROVIDER', async () => {
    const argument = await cli(
      'describe-target',
      '--target',
      process.execPath,
      '--provider',
      'fixture-deep',
      '--format',
      'json',
    );
    expect(JSON.parse(argument.stdout)).toMatchObject({ provider: 'fixture-deep', selection_source: 'argument' });
    const fromEnv = await run(FIXTURE_CLI, ['describe-target', '--target', process.execPath, '--format', 'json'], {
      env: { REA_ANALYSIS_PROVIDER: 'fixture-deep' },
    });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ selection_source: 'environment' });
    const unavailable = await cli(
      'describe-target',
      '--target',
      process.execPath,
      '--provider',
      'missing-engine',
      '--format',
      'json',
    );
    expect(unavailable.code).toBe(7);
    expect(JSON.parse(unavailable.stdout)).toMatchObject({
      error: { code: 'provider_selection', details: { reason: 'unavailable' } },
    });
    const badArgument = await cli('describe-target', '--target', process.execPath, '--provider', 'Not An Id');
    expect(badArgument.code).toBe(2);
    const badEnv = await run(FIXTURE_CLI, ['describe-target', '--target', process.execPath], {
      env: { REA_ANALYSIS_PROVIDER: 'Not An Id' },
    });
    expect(badEnv.code).toBe(4);
    expect(badEnv.stderr).toContain('REA_ANALYSIS_PROVIDER');
  });

  it('should offer --target and --provider only on commands of tools that use the open target', async () => {
    const help = await cli('hash-text', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--format');
    expect(help.stdout).not.toContain('--target');
    expect(help.stdout).not.toContain('--provider');
    expect((await cli('describe-target', '--help')).stdout).toContain('--target <path>');
    // A binary given to a tool that does not analyse one is refused, not opened for nothing.
    const refused = await cli('hash-text', '--text', 'x', '--target', process.execPath);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("Unknown option '--target' (did you mean --tags?)");
  });

  it("should put commander's suggestion on the diagnostic's one line, not as an escaped line break", async () => {
    const result = await cli('hash-text', '--text', 'x', '--forma', 'json');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "rea: error [invalid_request]: Unknown option '--forma' (did you mean --format?)\n",
    );
    expect(result.stderr).not.toContain('\\n');
    const command = await cli('hash-txt', '--format', 'json');
    expect(command.code).toBe(2);
    expect(JSON.parse(command.stdout)).toMatchObject({
      error: { code: 'invalid_request', message: "Unknown command 'hash-txt' (did you mean hash-text?)" },
    });
  });

  it('should name the flag of a required property left out, before the tool runs', async () => {
    const result = await cli('hash-text', '--algorithm', 'sha1');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'rea: error [invalid_request]: rea hash-text needs <text> or --text (or "text" in --input).\n',
    );
    expect(result.stderr).toContain('  - text: required');
    expect(result.stderr).toContain('remediation: Run `rea hash-text --help`');
    // The property given through --input is given.
    const viaInput = await cli('hash-text', '--input', '{"text":"abc"}', '--format', 'json');
    expect(viaInput.code).toBe(0);
    expect(JSON.parse(viaInput.stdout).normalized_result.digest).toBe(createHash('sha256').update('abc').digest('hex'));
  });

  it('should refuse a tool that needs a target when none is given, as the usage error it is', async () => {
    const result = await cli('describe-target');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'rea: error [invalid_request] in describe_target: describe-target analyses a binary: give its path, as in `rea describe-target <path>`.',
    );
    expect(result.stderr).toContain('  - target: the path of the binary to analyse is required');
  });
});

describe('rea CLI: errors and exit codes', () => {
  it('should refuse an unknown command with status 2 and no stack', async () => {
    const result = await cli('hash-txt', 'x');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown command 'hash-txt'");
    expect(result.stderr).toContain('hash-text');
    expect(hasStack(result.stderr)).toBe(false);
    expect(result.stdout).toBe('');
  });

  it('should answer help for an unknown command as the unknown command, with status 2', async () => {
    const result = await cli('help', 'hash-txt');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown command 'hash-txt'");
    expect(result.stderr).toContain('hash-text');
    expect(result.stdout).toBe('');
    const known = await cli('help', 'hash-text');
    expect(known.code).toBe(0);
    expect(known.stdout).toContain('Usage: rea hash-text');
  });

  it('should print usage errors as the JSON diagnostic when JSON was asked for', async () => {
    const result = await cli('hash-text', 'x', '--bogus', '--format', 'json');
    expect(result.code).toBe(2);
    const diagnostic = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(diagnostic.error.code).toBe('invalid_request');
    expect(diagnostic.error.message).toContain('--bogus');
  });

  it('should locate invalid JSON input by line and column', async () => {
    const text = '{\n  "text": "a",\n  "repeat": }';
    const result = await cli('hash-text', '--input', text, '--format', 'json');
    expect(result.code).toBe(2);
    const diagnostic = JSON.parse(result.stdout) as { error: { code: string; details: { position: object } } };
    expect(diagnostic.error.code).toBe('invalid_request');
    expect(diagnostic.error.details.position).toEqual({ offset: text.lastIndexOf('}'), line: 3, column: 13 });
  });

  it('should report a missing input file as not_found (status 3)', async () => {
    const result = await cli('hash-text', '--input', '@/nonexistent/rea-input.json');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('/nonexistent/rea-input.json does not exist');
    expect(hasStack(result.stderr)).toBe(false);
  });

  it('should report schema violations with their path (status 2)', async () => {
    const result = await cli('hash-text', '--input', '{"text":"a","repeat":11}', '--format', 'json');
    expect(result.code).toBe(2);
    const diagnostic = JSON.parse(result.stdout) as { error: { details: { issues: Array<{ path: string }> } } };
    expect(diagnostic.error.details.issues.map((i) => i.path)).toEqual(['repeat']);
    const flag = await cli('hash-text', 'a', '--repeat', 'many');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--repeat expects a number, got "many"');
  });

  it('should turn an unexpected exception into internal (status 1) without a stack', async () => {
    const human = await cli('fail-internal');
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('error [internal] in fail_internal');
    expect(human.stderr).toContain('cause: TypeError: boom: unexpected');
    expect(hasStack(human.stderr)).toBe(false);
    const json = await cli('fail-internal', '--format', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: { code: 'internal', details: { cause: { name: 'TypeError', message: 'boom: unexpected' } } },
    });
    expect(hasStack(json.stdout + json.stderr)).toBe(false);
  });
});

describe('rea CLI: signals', () => {
  it('should cancel on SIGINT with status 130 after cleaning up, even when signals repeat', async () => {
    await withTempDir(async (dir) => {
      const marker = join(dir, 'marker.json');
      const { child, done } = start(FIXTURE_CLI, [
        'wait-for-cancel',
        marker,
        '--input',
        '{"cleanup_ms":400}',
        '--format',
        'json',
      ]);
      await waitForFile(marker);
      const owned = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; dir: string };
      expect(processAlive(owned.pid)).toBe(true);
      expect(existsSync(owned.dir)).toBe(true);
      child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      child.kill('SIGTERM');
      const result = await done;
      expect(result.code).toBe(130);
      expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'cancelled', operation: 'wait_for_cancel' } });
      expect(result.stderr).toContain('still cleaning up');
      expect(processAlive(owned.pid)).toBe(false);
      expect(existsSync(owned.dir)).toBe(false);
    });
  });

  it('should treat SIGTERM as the same cancellation', async () => {
    await withTempDir(async (dir) => {
      const marker = join(dir, 'marker.json');
      const { child, done } = start(FIXTURE_CLI, ['wait-for-cancel', marker]);
      await waitForFile(marker);
      const owned = JSON.parse(readFileSync(marker, 'utf8')) as { pid: number; dir: string };
      child.kill('SIGTERM');
      const result = await done;
      expect(result.code).toBe(130);
      expect(result.stderr).toContain('error [cancelled]');
      expect(hasStack(result.stderr)).toBe(false);
      expect(processAlive(owned.pid)).toBe(false);
      expect(existsSync(owned.dir)).toBe(false);
    });
  });
});
