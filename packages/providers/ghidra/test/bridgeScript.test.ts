// The shipped bridge script parses as Java. No Ghidra classes are available to compile it against, so
// this runs javac's parser only (JavacTask.parse): syntax, not API use, is what it establishes.
import { expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipUnless, toolsMissing } from '@rea/test-helpers';
import { GHIDRA_BRIDGE_SCRIPT, ghidraScriptsDirectory } from '@rea/provider-ghidra';

const PARSER = `
import javax.tools.*;
import com.sun.source.util.JavacTask;
import java.util.List;
public class ParseOnly {
  public static void main(String[] args) throws Exception {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> found = new DiagnosticCollector<>();
    StandardJavaFileManager files = compiler.getStandardFileManager(found, null, null);
    JavacTask task = (JavacTask) compiler.getTask(null, files, found, List.of("-proc:none"), null, files.getJavaFileObjects(args));
    task.parse();
    for (Diagnostic<?> d : found.getDiagnostics()) System.out.println(d.getKind() + " " + d.getLineNumber() + ": " + d.getMessage(null));
    System.exit(found.getDiagnostics().stream().anyMatch(d -> d.getKind() == Diagnostic.Kind.ERROR) ? 1 : 0);
  }
}
`;

skipUnless(toolsMissing('java', 'javac'))('Ghidra bridge script', () => {
  const parse = (file: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-javaparse-'));
    try {
      writeFileSync(join(dir, 'ParseOnly.java'), PARSER);
      return spawnSync('java', [join(dir, 'ParseOnly.java'), file], { encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('parses as Java', () => {
    const result = parse(join(ghidraScriptsDirectory(), GHIDRA_BRIDGE_SCRIPT));
    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  }, 120_000);

  it('would report a syntax error (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-javaparse-bad-'));
    try {
      writeFileSync(join(dir, 'Bad.java'), 'class Bad { void f() { int x = ; } }\n');
      const result = parse(join(dir, 'Bad.java'));
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/ERROR 1:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
