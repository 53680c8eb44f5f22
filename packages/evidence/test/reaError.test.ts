import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { runInNewContext } from 'node:vm';
import {
  ERROR_CODES,
  ERROR_CODE_LIST,
  ReaError,
  isErrorCode,
  isReaError,
  normalizeError,
  throwIfAborted,
  toDiagnostic,
} from '@rea/evidence';

const DESIGN_CODES = [
  'invalid_request',
  'not_found',
  'capability_unavailable',
  'provider_unavailable',
  'provider_selection',
  'provider_timeout',
  'target_unavailable',
  'unsupported_target',
  'cancelled',
  'cleanup_incomplete',
  'resource_constraint',
  'artifact_integrity_mismatch',
  'evidence_integrity_mismatch',
  'access_denied',
  'configuration_invalid',
  'execution_failure',
  'internal',
];

function thrown(): Error {
  try {
    JSON.parse('{');
  } catch (error) {
    return error as Error;
  }
  throw new Error('unreachable');
}

describe('error model', () => {
  it('should document every code of the design, each with when, details and remediation', () => {
    expect([...ERROR_CODE_LIST].sort()).toEqual([...DESIGN_CODES].sort());
    for (const code of ERROR_CODE_LIST) {
      const doc = ERROR_CODES[code];
      expect(doc.when.length).toBeGreaterThan(10);
      expect(doc.details.length).toBeGreaterThan(5);
      expect(doc.remediation.length).toBeGreaterThan(10);
      expect(typeof doc.retryable).toBe('boolean');
      expect(isErrorCode(code)).toBe(true);
    }
    expect(isErrorCode('boom')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('should project a ReaError to the canonical diagnostic with its defaults', () => {
    const error = new ReaError('not_found', 'No Evidence ev_1.', {
      details: { reason: 'missing', evidence_id: 'ev_1' },
    });
    expect(toDiagnostic(error, 'inspect_analysis_view')).toEqual({
      error: {
        code: 'not_found',
        message: 'No Evidence ev_1.',
        operation: 'inspect_analysis_view',
        retryable: false,
        remediation: ERROR_CODES.not_found.remediation,
        details: { reason: 'missing', evidence_id: 'ev_1' },
      },
    });
    expect(Object.keys(toDiagnostic(error))).toEqual(['error']);
    expect(Object.keys(toDiagnostic(error).error).sort()).toEqual(
      ['code', 'details', 'message', 'operation', 'remediation', 'retryable'].sort(),
    );
    expect(toDiagnostic(error).error.operation).toBeNull();
  });

  it('should tell an invalid_request without issues to follow its message, not issues it does not have', () => {
    const withIssues = new ReaError('invalid_request', 'Bad input.', {
      details: { issues: [{ path: 'path', message: 'Required' }] },
    });
    expect(withIssues.remediation).toBe(ERROR_CODES.invalid_request.remediation);
    expect(ERROR_CODES.invalid_request.remediation).toContain('as the issues describe');
    const judged = new ReaError('invalid_request', 'Offset 9 is past the end.', { details: { reason: 'x' } });
    expect(judged.remediation).toBe('Correct the input as the message says and call again.');
    expect(new ReaError('invalid_request', 'No details.').remediation).toBe(
      'Correct the input as the message says and call again.',
    );
  });

  it('should keep an operation already attributed', () => {
    const error = new ReaError('cancelled', 'stop', { operation: 'open_binary' });
    expect(normalizeError(error, 'close_binary').operation).toBe('open_binary');
    expect(normalizeError(error)).toBe(error);
  });

  it('should let explicit options override the code defaults', () => {
    const error = new ReaError('execution_failure', 'engine died', { retryable: false, remediation: 'Reinstall.' });
    expect(toDiagnostic(error).error).toMatchObject({ retryable: false, remediation: 'Reinstall.' });
    expect(new ReaError('provider_timeout', 't').retryable).toBe(true);
  });

  it('should turn an Error into internal without leaking its stack', () => {
    const error = thrown();
    expect(error.stack).toContain('\n');
    const diagnostic = toDiagnostic(error, 'binary_overview');
    expect(diagnostic.error.code).toBe('internal');
    expect(diagnostic.error.details).toEqual({ cause: { name: 'SyntaxError', message: error.message } });
    const text = JSON.stringify(diagnostic);
    expect(text).not.toContain(error.stack!.split('\n')[1]!.trim());
    expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('should turn strings and other values into internal', () => {
    expect(toDiagnostic('disk on fire').error.details).toEqual({ cause: { name: 'string', message: 'disk on fire' } });
    expect(toDiagnostic(42).error.details).toEqual({ cause: { name: 'number', message: '42' } });
    expect(toDiagnostic(undefined).error.code).toBe('internal');
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    expect(() => JSON.stringify(toDiagnostic(circular))).not.toThrow();
  });

  it('should describe errors from another realm by name and message', () => {
    const foreign = runInNewContext('new TypeError("bad operand")') as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(toDiagnostic(foreign).error.details).toEqual({ cause: { name: 'TypeError', message: 'bad operand' } });
    const abort = runInNewContext('Object.assign(new Error("stop"), { name: "AbortError" })') as unknown;
    expect(normalizeError(abort).code).toBe('cancelled');
  });

  it('should turn a system error of the file being read into target_unavailable, and keep others internal', async () => {
    // A real EIO: /proc/self/mem is a regular file of size 0 whose offset 0 is not mapped.
    const handle = await open('/proc/self/mem', 'r');
    let eio: unknown;
    try {
      await handle.read(Buffer.alloc(16), 0, 16, 0);
    } catch (error) {
      eio = error;
    } finally {
      await handle.close();
    }
    expect((eio as { code?: string }).code).toBe('EIO');
    expect(toDiagnostic(normalizeError(eio, 'inspect_artifact')).error).toMatchObject({
      code: 'target_unavailable',
      operation: 'inspect_artifact',
      details: { reason: 'EIO', syscall: 'read' },
    });
    // A missing file is REA's to explain where it opens one (not_found with its path); thrown past
    // that, it is a defect, so it stays internal.
    let missing: unknown;
    try {
      readFileSync('/nonexistent/rea-error-test');
    } catch (error) {
      missing = error;
    }
    expect(normalizeError(missing).code).toBe('internal');
    // Refused access (EACCES/EPERM from a system call) is access_denied.
    const refused = Object.assign(new Error("EACCES: permission denied, open '/x'"), {
      code: 'EACCES',
      syscall: 'open',
      path: '/x',
    });
    expect(toDiagnostic(normalizeError(refused)).error).toMatchObject({
      code: 'access_denied',
      details: { path: '/x', reason: 'EACCES', syscall: 'open' },
    });
    // Not of reading: a helper REA ships that cannot be spawned, a write that fails. Those are REA's.
    const spawned = Object.assign(new Error('spawn /opt/helper EACCES'), {
      code: 'EACCES',
      syscall: 'spawn /opt/helper',
    });
    expect(normalizeError(spawned).code).toBe('internal');
    const written = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', syscall: 'write' });
    expect(normalizeError(written).code).toBe('internal');
  });

  it('should turn an AbortError into cancelled', () => {
    const controller = new AbortController();
    controller.abort();
    const error = normalizeError(controller.signal.reason, 'analyze_function');
    expect(error.code).toBe('cancelled');
    expect(error.retryable).toBe(true);
    expect(JSON.stringify(toDiagnostic(controller.signal.reason))).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('should throw cancelled from throwIfAborted only when aborted', () => {
    const controller = new AbortController();
    expect(() => throwIfAborted(controller.signal, 'hashing')).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
    controller.abort();
    let error: unknown;
    try {
      throwIfAborted(controller.signal, 'hashing');
    } catch (caught) {
      error = caught;
    }
    expect(isReaError(error)).toBe(true);
    expect(toDiagnostic(error).error).toMatchObject({ code: 'cancelled', details: { phase: 'hashing' } });
  });

  it('should recognise ReaErrors by brand, not by instanceof', () => {
    const error = new ReaError('internal', 'x');
    const copy = Object.assign(Object.create(null) as object, error, {
      [Symbol.for('rea.error')]: true,
      code: 'internal',
    });
    expect(isReaError(copy)).toBe(true);
    expect(isReaError(new Error('x'))).toBe(false);
    expect(isReaError({ code: 'internal' })).toBe(false);
    expect(isReaError({ [Symbol.for('rea.error')]: true, code: 'made_up' })).toBe(false);
  });
});
