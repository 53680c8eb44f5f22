import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEvidence } from '@rea/evidence';
import { compileFixture, skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const version = (JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { version: string }).version;
const rea = (args: string[], cwd?: string) => run(bin, args, cwd === undefined ? {} : { cwd });
const hasStack = (text: string) => /\n\s+at .+(\(|:\d+:\d+)/.test(text);

/** Section names as readelf lists them, without the null section at index 0. */
function readelfSections(path: string): string[] {
  const text = execFileSync('readelf', ['-SW', path], { encoding: 'utf8' });
  const names: string[] = [];
  for (const match of text.matchAll(/^\s+\[\s*(\d+)\]\s+(\S*)/gm)) {
    if (match[1] !== '0') names.push(match[2]!);
  }
  return names;
}

skipUnless(toolsMissing('gcc', 'readelf'))('rea: session and Evidence tools without an MCP connection', () => {
  it('should page a record produced by an earlier invocation, given inline with --input @file.json', async () => {
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report-session-tools',
    });
    const expected = readelfSections(binary);
    expect(expected.length).toBeGreaterThan(10);
    await withTempDir(async (dir) => {
      const layout = await rea(['inspect-binary-layout', binary, '--format', 'json']);
      expect(layout.code).toBe(0);
      const parent = parseEvidence(JSON.parse(layout.stdout));
      const names: string[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const request = join(dir, `page-${pages}.json`);
        writeFileSync(
          request,
          JSON.stringify({ source: parent, view: 'page', collection: 'sections', offset, limit: 8 }),
        );
        const page = await rea(['inspect-analysis-view', '--input', `@${request}`, '--format', 'json']);
        expect(page.stderr).toBe('');
        expect(page.code).toBe(0);
        const view = parseEvidence(JSON.parse(page.stdout));
        expect(view.operation).toBe('inspect_analysis_view');
        expect(view.evidence_links).toContain(parent.evidence_id);
        const result = view.normalized_result as {
          parent_evidence_id: string;
          items: Array<{ name: string }>;
          coverage: { next_offset?: number | null };
        };
        expect(result.parent_evidence_id).toBe(parent.evidence_id);
        expect(result.items.length).toBeLessThanOrEqual(8);
        names.push(...result.items.map((item) => item.name));
        offset = result.coverage.next_offset ?? null;
        pages += 1;
        expect(pages).toBeLessThan(20);
      }
      expect(pages).toBe(Math.ceil(expected.length / 8));
      expect(names).toEqual(expected);
    });
  });

  it('should import a bundle written by rea analyze --export into the invocation ledger', async () => {
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report-session-tools',
    });
    await withTempDir(async (dir) => {
      const bundlePath = join(dir, 'bundle.json');
      expect((await rea(['analyze', binary, '--export', bundlePath, '--quiet'])).code).toBe(0);
      const written = JSON.parse(readFileSync(bundlePath, 'utf8')) as { records: Array<{ evidence_id: string }> };
      expect(written.records.length).toBeGreaterThan(0);
      const imported = await rea(['import-evidence-bundle', '--path', bundlePath, '--format', 'json']);
      expect(imported.code).toBe(0);
      const value = JSON.parse(imported.stdout) as { added: string[]; already_present: string[]; byte_size: number };
      expect([...value.added].sort()).toEqual(written.records.map((r) => r.evidence_id).sort());
      expect(value.already_present).toEqual([]);
      expect(value.byte_size).toBe(readFileSync(bundlePath).length);
    });
  });

  it('should refuse an inline record whose content no longer matches its id', async () => {
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report-session-tools',
    });
    const layout = await rea(['inspect-binary-layout', binary, '--format', 'json']);
    const record = JSON.parse(layout.stdout) as { normalized_result: { sections: Array<{ name: string }> } };
    record.normalized_result.sections[0]!.name = '.forged';
    const result = await rea([
      'inspect-analysis-view',
      '--input',
      JSON.stringify({ source: record, view: 'summary' }),
      '--format',
      'json',
    ]);
    expect(result.code).not.toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'evidence_integrity_mismatch' } });
    expect(hasStack(result.stderr)).toBe(false);
  });
});

describe('rea: binary-session and the connection tools from the command line', () => {
  it('should report identity, the advertised catalog digest, availability and provider candidates', async () => {
    const [session, catalog] = await Promise.all([
      rea(['binary-session', '--format', 'json']),
      rea(['catalog', '--format', 'json']),
    ]);
    expect(session.code).toBe(0);
    const value = JSON.parse(session.stdout) as {
      package: { name: string; version: string };
      server: { transport: string; path: string | null };
      protocol: { negotiated_version: string | null; client: unknown };
      catalog: { digest: string; tool_count: number; profile: string };
      tool_availability: Array<{ name: string; available: boolean; remediation: string | null }>;
      analysis_provider_candidates: Array<{ id: string; available: boolean; embedded: boolean }>;
      target: unknown;
      ledger: { records: number; bytes: number };
      process_lineage: { status: string };
    };
    const advertised = JSON.parse(catalog.stdout) as { digest: string; tools: Array<{ name: string }> };
    expect(value.package).toEqual({ name: 'rea-mcp', version });
    expect(value.server.transport).toBe('custom');
    expect(value.protocol).toEqual({ negotiated_version: null, client: null });
    expect(value.catalog).toMatchObject({
      digest: advertised.digest,
      tool_count: advertised.tools.length,
      profile: 'full',
    });
    expect(value.tool_availability.map((t) => t.name)).toEqual(advertised.tools.map((t) => t.name));
    const byName = new Map(value.tool_availability.map((t) => [t.name, t]));
    expect(byName.get('inspect_analysis_view')?.available).toBe(true);
    expect(byName.get('open_binary')).toMatchObject({ available: false });
    expect(byName.get('open_binary')?.remediation).toContain('--target');
    expect(value.analysis_provider_candidates).toContainEqual(
      expect.objectContaining({ id: 'capstone', available: true, embedded: true }),
    );
    expect(value.target).toBeNull();
    expect(value.ledger).toEqual({ records: 0, bytes: 0 });
    expect(value.process_lineage).toEqual({ status: 'not_observed' });
  });

  it('should compare an expected package version with the running one', async () => {
    const result = await rea(['binary-session', '--expected-package-version', '0.0.0-other', '--format', 'json']);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { expectations: unknown[] }).expectations).toEqual([
      { field: 'package_version', expected: '0.0.0-other', actual: version, matches: false },
    ]);
  });

  it('should open a binary with open-binary, report the binding and run, and close it again', async () => {
    const binary = compileFixture({
      source: join(here, 'fixtures', 'report.c'),
      compiler: 'gcc',
      args: ['-O0', '-fno-inline'],
      output: 'report',
    });
    const result = await rea(['open-binary', binary, '--provider', 'capstone', '--format', 'json']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const opened = JSON.parse(result.stdout) as {
      target: { path: string; size: number };
      analysis_provider_binding: { provider: { id: string }; selection_source: string };
      analysis_run: { run_id: string };
    };
    expect(opened.target).toMatchObject({ path: binary, size: readFileSync(binary).length });
    expect(opened.analysis_provider_binding).toMatchObject({
      provider: { id: 'capstone' },
      selection_source: 'argument',
    });
    expect(opened.analysis_run.run_id).toMatch(/^run_/);
    const unknown = await rea(['open-binary', binary, '--provider-id', 'nope', '--format', 'json']);
    expect(unknown.code).toBe(7);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: 'provider_selection' } });
    expect(hasStack(unknown.stderr)).toBe(false);
  });

  it('should export and import bundles over the invocation ledger', async () => {
    await withTempDir(async (dir) => {
      const empty = join(dir, 'empty.json');
      const exported = await rea(['export-evidence-bundle', '--path', empty, '--format', 'json']);
      expect(exported.code).toBe(0);
      expect(JSON.parse(exported.stdout)).toMatchObject({ path: empty, record_count: 0 });
      // Each invocation is its own session: an export alone holds nothing, and says how to keep records.
      expect(exported.stderr).toContain('the bundle holds no record');
      expect(exported.stderr).toContain('rea analyze <path> --export <file>');
      const quiet = await rea(['export-evidence-bundle', '--path', empty, '--quiet']);
      expect(quiet.stderr).not.toContain('the bundle holds no record');
      expect(JSON.parse(readFileSync(empty, 'utf8'))).toEqual({
        format: 'rea-evidence-bundle',
        records: [],
        version: 1,
      });
      const imported = await rea(['import-evidence-bundle', '--path', empty, '--format', 'json']);
      expect(imported.code).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ added: [], already_present: [] });
      const bundle = await rea(['get-evidence-bundle', '--format', 'json']);
      expect(JSON.parse(bundle.stdout)).toEqual({ format: 'rea-evidence-bundle', records: [], version: 1 });
    });
  });
});
