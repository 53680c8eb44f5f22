// Error responses echoed a 2 MB input path up to three times (message, details, remediation). Every
// string of a diagnostic is now a bounded prefix that says how long the original was.
import { describe, expect, it } from '@jest/globals';
import { DIAGNOSTIC_STRING_LIMIT, ReaError, capEcho, toDiagnostic } from '@rea/evidence';

describe('capEcho and toDiagnostic (issue 15)', () => {
  it('should leave a string within the limit unchanged', () => {
    const text = 'p'.repeat(DIAGNOSTIC_STRING_LIMIT);
    expect(capEcho(text)).toBe(text);
  });

  it('should keep a prefix and state the original length of a longer string', () => {
    const text = `/${'a'.repeat(2 * 1024 * 1024)}`;
    const capped = capEcho(text);
    expect(capped.startsWith(text.slice(0, DIAGNOSTIC_STRING_LIMIT))).toBe(true);
    expect(capped.endsWith(`… [${DIAGNOSTIC_STRING_LIMIT} of ${text.length} characters shown]`)).toBe(true);
    expect(capped.length).toBeLessThan(DIAGNOSTIC_STRING_LIMIT + 64);
  });

  it('should never split a surrogate pair', () => {
    const text = `${'a'.repeat(9)}😀${'b'.repeat(20)}`;
    const capped = capEcho(text, 10);
    expect(capped.startsWith(`${'a'.repeat(9)}…`)).toBe(true);
    expect(capped).toContain('[9 of 31 characters shown]');
    expect(capEcho(text, 11).startsWith(`${'a'.repeat(9)}😀…`)).toBe(true);
  });

  it('should bound every string of a diagnostic: message, remediation, operation and nested details', () => {
    const path = `/tmp/${'d/'.repeat(1024 * 1024)}`;
    const error = new ReaError('not_found', `No file or directory at ${path}.`, {
      operation: path,
      remediation: `Check ${path}.`,
      details: { path, nested: { list: [path, 1, true, null] }, [path]: 'key' },
    });
    const diagnostic = toDiagnostic(error);
    const size = JSON.stringify(diagnostic).length;
    expect(size).toBeLessThan(8 * (DIAGNOSTIC_STRING_LIMIT + 64));
    expect(diagnostic.error.message.startsWith('No file or directory at /tmp/d/d/')).toBe(true);
    expect(diagnostic.error.message).toContain(`of ${path.length + 25} characters shown]`);
    expect(diagnostic.error.details['path']).toBe(capEcho(path));
    expect((diagnostic.error.details['nested'] as { list: unknown[] }).list).toEqual([capEcho(path), 1, true, null]);
    expect(diagnostic.error.code).toBe('not_found');
  });
});
