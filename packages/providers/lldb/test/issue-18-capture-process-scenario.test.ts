import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';

jest.setTimeout(180_000);
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaptureResult } from '../src/capture/schema.js';
import { capture, failure, fixture, run } from './support.js';

/** Alive and not a zombie (a zombie reparented to a non-reaping init is gone for every purpose here). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('capture_process_scenario', () => {
  it('should drive a program through stdin and wait for its output', async () => {
    const result = await run<CaptureResult>(capture, {
      executable: fixture('echo'),
      actions: [
        { type: 'wait_for_output', pattern: '^ready', stream: 'stdout', timeout_ms: 60_000 },
        { type: 'write_stdin', data: 'one\n' },
        { type: 'wait_for_output', pattern: 'echo: one', stream: 'stdout', timeout_ms: 60_000 },
        { type: 'close_stdin' },
      ],
      deadline_ms: 120_000,
    });
    expect(result.actions.map((a) => a.outcome)).toEqual(['matched', 'done', 'matched', 'done']);
    expect(result.stdout?.text).toBe('ready\necho: one\n');
    expect(result.stderr?.text).toBe('bye\n');
    expect([result.exit_code, result.signal, result.cleanup.status]).toEqual([0, null, 'not-needed']);
  });

  it('should run a program that needs a terminal on a pty and model its final screen', async () => {
    const program = fixture('needs_tty');
    const piped = await run<CaptureResult>(capture, { executable: program, deadline_ms: 60_000 });
    expect([piped.exit_code, piped.stderr?.text]).toEqual([3, 'not a terminal\n']);
    const result = await run<CaptureResult>(capture, {
      executable: program,
      pty: { columns: 40, rows: 10 },
      actions: [
        { type: 'wait_for_output', pattern: 'at 5,3', timeout_ms: 60_000 },
        { type: 'write_stdin', data: 'k\n' },
      ],
      deadline_ms: 120_000,
    });
    expect(result.exit_code).toBe(0);
    expect((result.screen?.['lines'] as string[]).slice(0, 6)).toEqual([
      'Title',
      'size 40x10',
      '',
      '',
      '  at 5,3k',
      'got k',
    ]); // the terminal echoes the key
    expect(result.transcript?.text).toContain('size 40x10');
    expect(result.stdout).toBeNull();
  });

  it('should escalate to SIGKILL for a program that ignores SIGTERM and record every attempt', async () => {
    const result = await run<CaptureResult>(capture, {
      executable: fixture('ignores_term'),
      actions: [
        { type: 'wait_for_output', pattern: 'ignoring', timeout_ms: 60_000 },
        { type: 'signal', signal: 'SIGTERM' },
      ],
      then: 'cleanup',
      cleanup: { signal: 'SIGTERM', grace_ms: 200 },
      deadline_ms: 120_000,
    });
    expect(result.signals.map((s) => [s.signal, s.phase, s.target, s.result])).toEqual([
      ['SIGTERM', 'action', 'process', 'delivered'],
      ['SIGTERM', 'cleanup', 'group', 'delivered'],
      ['SIGKILL', 'cleanup', 'group', 'delivered'],
    ]);
    expect([result.signal, result.exit_code, result.cleanup.status]).toEqual(['SIGKILL', null, 'complete']);
  });

  it('should end grandchildren that left the process group with setsid', async () => {
    const result = await run<CaptureResult>(capture, {
      executable: fixture('forks'),
      actions: [{ type: 'wait_for_output', pattern: 'grandchild (\\d+)', timeout_ms: 60_000 }],
      then: 'cleanup',
      cleanup: { signal: 'SIGTERM', grace_ms: 100 },
      deadline_ms: 120_000,
    });
    const grandchild = Number(/grandchild (\d+)/.exec(result.stdout!.text)![1]);
    expect(result.descendants_seen.map((d) => d.pid)).toContain(grandchild);
    expect(
      result.signals.some((s) => s.pid === grandchild && s.target === 'descendant' && s.result === 'delivered'),
    ).toBe(true);
    expect(running(grandchild)).toBe(false);
  });

  it('should keep draining a flood past the output budget and state the cut', async () => {
    const result = await run<CaptureResult>(capture, {
      executable: fixture('flood'),
      args: ['4'],
      max_output_bytes: 1000,
      deadline_ms: 120_000,
    });
    expect([result.exit_code, result.stdout?.bytes, result.stdout?.text.length, result.stdout?.truncated]).toEqual([
      0,
      4 * 1024 * 1024,
      1000,
      true,
    ]);
  });

  it('should report the deadline as a limitation and clean up', async () => {
    const result = await run<CaptureResult>(capture, {
      executable: fixture('ignores_term'),
      deadline_ms: 300,
      cleanup: { signal: 'SIGTERM', grace_ms: 100 },
    });
    expect([result.deadline_reached, result.signal, result.exit_code]).toEqual([true, 'SIGKILL', null]);
  });

  it('should cancel a running scenario, clean up and keep the signal attempts', async () => {
    const controller = new AbortController();
    const started = run<CaptureResult>(
      capture,
      { executable: fixture('ignores_term'), deadline_ms: 120_000, cleanup: { signal: 'SIGTERM', grace_ms: 100 } },
      {
        signal: controller.signal,
        progress: { report: (message) => message.startsWith('phase started') && controller.abort() },
      },
    ).then(
      () => null,
      (e: unknown) => e as { code: string; details: { partial_observation: CaptureResult } },
    );
    const error = await started;
    expect(error?.code).toBe('cancelled');
    const partial = error!.details.partial_observation;
    expect(partial.signals.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL']);
    expect([partial.exit_code, partial.elapsed_ms === null || partial.elapsed_ms >= 0]).toEqual([null, true]);
  });

  describe('bad input', () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'rea-lldb-bad-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('should refuse a missing path, a directory, a non-executable file and a script without interpreter', async () => {
      const plain = join(dir, 'plain');
      writeFileSync(plain, 'echo hi\n');
      const script = join(dir, 'script');
      writeFileSync(script, 'echo hi\n');
      chmodSync(script, 0o755);
      const orphan = join(dir, 'orphan');
      writeFileSync(orphan, '#!/nonexistent/interpreter\n');
      chmodSync(orphan, 0o755);
      const codes = [];
      for (const executable of [join(dir, 'missing'), dir, plain, script, orphan]) {
        const error = await failure(capture, { executable });
        codes.push([error.code, error.details['reason']]);
      }
      expect(codes).toEqual([
        ['not_found', 'missing'],
        ['invalid_request', 'directory'],
        ['invalid_request', 'not-executable'],
        ['invalid_request', 'no-interpreter'],
        ['invalid_request', 'interpreter-missing'],
      ]);
    });

    it('should refuse an invalid action sequence before starting anything', async () => {
      const resize = await failure(capture, {
        executable: '/bin/cat',
        actions: [{ type: 'resize', columns: 10, rows: 5 }],
      });
      const twice = await failure(capture, {
        executable: '/bin/cat',
        actions: [{ type: 'close_stdin' }, { type: 'write_stdin', data: 'x' }],
      });
      const pattern = await failure(capture, {
        executable: '/bin/cat',
        pty: false,
        actions: [{ type: 'wait_for_output', pattern: '(unclosed', stream: 'stdout', timeout_ms: 100 }],
      });
      const stream = await failure(capture, {
        executable: '/bin/cat',
        pty: true,
        actions: [{ type: 'wait_for_output', pattern: 'x', stream: 'stdout', timeout_ms: 100 }],
      });
      const refusals = [resize, twice, pattern, stream];
      expect(refusals.map((error) => error.details['reason'])).toEqual(Array(4).fill('invalid-action-sequence'));
      // Each says what to change about its own action.
      expect(refusals.map((error) => error.remediation)).toEqual([
        expect.stringContaining('Give pty'),
        expect.stringContaining('Move close_stdin after the last write_stdin'),
        expect.stringContaining('Fix the pattern'),
        expect.stringContaining('Use stream "any" with pty'),
      ]);
      expect(pattern.message).toContain('actions[0] (wait_for_output): the pattern is not a regular expression');
    });
  });
});
