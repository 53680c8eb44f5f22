/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// The end-to-end behaviour every transport must show, driven by the official MCP client against the
// built server with the scripted stand-in providers (test/fixtures/standInProvider.mjs).
import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { ERROR_CODE_LIST, computeEvidenceId } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';

/** A connected client, every message it received (in wire order), and how to end it. */
export interface Connected {
  client: Client;
  received: Array<Record<string, any>>;
  close(): Promise<void>;
}

/** Records every message `transport` delivers to the client, in wire order (call after connect). */
export function recordInbound(transport: {
  onmessage?: ((message: any, extra?: any) => void) | undefined;
}): Array<Record<string, any>> {
  const received: Array<Record<string, any>> = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    received.push(message as Record<string, any>);
    deliver(message, extra);
  };
  return received;
}

type CallResult = {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** The canonical diagnostic of a failed call (asserting the failure shape on the way). */
export function diagnosticOf(value: unknown): { code: string; details: Record<string, unknown>; message: string } {
  const result = value as CallResult;
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  expect(result.content).toHaveLength(1);
  const parsed = JSON.parse(result.content[0]!.text!) as {
    error: { code: string; details: Record<string, unknown>; message: string };
  };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(ERROR_CODE_LIST).toContain(parsed.error.code);
  return parsed.error;
}

/**
 * The structured value of a successful call, asserting text and structured content agree, and that an
 * Evidence result (and only one) also links its retained record as `rea://evidence/<evidence_id>`.
 */
export function valueOf<T = Record<string, unknown>>(value: unknown): T {
  const result = value as CallResult;
  if (result.isError) throw new Error(`unexpected failure: ${result.content[0]?.text ?? ''}`);
  expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
  const structured = result.structuredContent ?? {};
  const evidenceId = typeof structured['schema_version'] === 'number' ? structured['evidence_id'] : undefined;
  if (typeof evidenceId === 'string') {
    expect(result.content).toHaveLength(2);
    expect(result.content[1]).toMatchObject({ type: 'resource_link', uri: `rea://evidence/${evidenceId}` });
  } else {
    expect(result.content).toHaveLength(1);
  }
  return result.structuredContent as T;
}

/** True once `pid` no longer runs (absent, or a zombie awaiting its reaper); polls for up to 5 s. */
export async function processGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i += 1) {
    try {
      process.kill(pid, 0);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return true;
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}, options = {}) =>
  client.callTool({ name, arguments: args }, { timeout: 60_000, ...options }) as Promise<CallResult>;

const SERVER_TOOLS = [
  'binary_session',
  'close_binary',
  'export_evidence_bundle',
  'get_evidence_bundle',
  'import_evidence_bundle',
  'inspect_analysis_view',
  'open_binary',
];

// Examples whose real call must fail, and with which code (everything else must succeed).
const EXPECTED_EXAMPLE_FAILURES: Record<string, string> = {
  fail_with_large_details: 'execution_failure',
  ghost_query: 'capability_unavailable',
  inspect_analysis_view: 'not_found',
  violate_output_schema: 'internal',
};

/** Registers the shared end-to-end suite for one transport. */
export function describeTransportSuite(transport: string, connect: () => Promise<Connected>): void {
  describe(`@rea/server over ${transport} (stand-in providers)`, () => {
    let connected: Connected;
    let client: Client;
    let listChanged = 0;
    let dir: string;
    let target: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rea-server-e2e-'));
      target = join(dir, 'target.elf');
      writeFileSync(target, Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.alloc(4096, 7)]));
      connected = await connect();
      client = connected.client;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        listChanged += 1;
      });
    });
    afterAll(async () => {
      await connected?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('should initialize with tools (no list_changed) and logging capabilities', () => {
      expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: false }, logging: {} });
      expect(client.getServerVersion()).toEqual({ name: 'rea-stand-in', version: '0.0.0-test' });
    });

    it('should list the complete sorted catalog, including unavailable tools, with schemas', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual([...names].sort());
      for (const name of [...SERVER_TOOLS, 'ghost_query', 'slow_count', 'describe_target'])
        expect(names).toContain(name);
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.description!.length).toBeGreaterThan(20);
      }
    });

    it('should call every advertised example for real, in the success or failure shape', async () => {
      const { tools } = await client.listTools();
      const order = [
        ...tools.filter((t) => t.name === 'open_binary'),
        ...tools.filter((t) => t.name !== 'open_binary' && t.name !== 'close_binary'),
        ...tools.filter((t) => t.name === 'close_binary'),
      ];
      let called = 0;
      for (const tool of order) {
        const examples = (tool.inputSchema as { examples?: Array<Record<string, unknown>> }).examples ?? [];
        expect(examples.length).toBeGreaterThan(0);
        for (const example of examples) {
          const result = await call(client, tool.name, example);
          called += 1;
          const expected = EXPECTED_EXAMPLE_FAILURES[tool.name];
          if (expected)
            expect({ tool: tool.name, code: diagnosticOf(result).code }).toEqual({ tool: tool.name, code: expected });
          else expect({ tool: tool.name, error: result.isError ?? false }).toEqual({ tool: tool.name, error: false });
          if (!result.isError) valueOf(result);
        }
      }
      expect(called).toBeGreaterThanOrEqual(tools.length);
    });

    it('should keep the catalog static across open and close, without list_changed', async () => {
      const before = await client.listTools();
      valueOf(await call(client, 'open_binary', { path: target, provider_id: 'stand-in' }));
      const during = await client.listTools();
      valueOf(await call(client, 'close_binary'));
      const after = await client.listTools();
      expect(during).toEqual(before);
      expect(after).toEqual(before);
      expect(listChanged).toBe(0);
    });

    it('should report identity, availability, candidates, run id and lineage through binary_session', async () => {
      const idle = valueOf<Record<string, any>>(
        await call(client, 'binary_session', { expected_package_version: '9.9.9' }),
      );
      expect(idle['package']).toEqual({ name: 'rea-stand-in', version: '0.0.0-test' });
      expect(idle['sdk']).toEqual({ name: '@modelcontextprotocol/server', version: '2.3.1' });
      expect(idle['protocol'].negotiated_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(idle['expectations']).toEqual([
        { field: 'package_version', expected: '9.9.9', actual: '0.0.0-test', matches: false },
      ]);
      expect(idle['analysis_provider_candidates'].map((c: { id: string }) => c.id)).toEqual(['ghost', 'stand-in']);
      expect(idle['analysis_provider_candidates'][0]).toMatchObject({ available: false, target_support: 'unknown' });
      expect(idle['analysis_provider_binding']).toBeNull();
      expect(idle['process_lineage']).toEqual({ status: 'not_observed' });
      const ghost = idle['tool_availability'].find((t: { name: string }) => t.name === 'ghost_query');
      expect(ghost).toMatchObject({ available: false, reason: 'the ghost engine is not installed' });
      const describe = idle['tool_availability'].find((t: { name: string }) => t.name === 'describe_target');
      expect(describe.available).toBe(false);

      const opened = valueOf<Record<string, any>>(await call(client, 'open_binary', { path: target }));
      expect(opened['reused']).toBe(false);
      expect(opened['target']).toMatchObject({ path: target, format: 'elf', size: 4100 });
      expect(opened['analysis_run'].run_id).toMatch(/^run_[0-9a-f-]{36}$/);
      expect(opened['analysis_provider_binding']).toMatchObject({
        provider: { id: 'stand-in', version: '1.0.0-standin' },
        selection_source: 'auto',
      });
      const live = valueOf<Record<string, any>>(await call(client, 'binary_session'));
      expect(live['analysis_run'].run_id).toBe(opened['analysis_run'].run_id);
      expect(live['process_lineage'].status).toBe('snapshots');
      const observation = live['process_lineage'].snapshots[0].observations[0];
      const pid = observation.launcher.pid as number;
      expect(observation.status).toBe('verified');
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(live['tool_availability'].find((t: { name: string }) => t.name === 'describe_target').available).toBe(
        true,
      );

      const again = valueOf<Record<string, any>>(
        await call(client, 'open_binary', { path: target, provider_id: 'stand-in' }),
      );
      expect(again['reused']).toBe(true);
      expect(again['analysis_run'].run_id).toBe(opened['analysis_run'].run_id);

      const closed = valueOf<Record<string, any>>(await call(client, 'close_binary'));
      expect(closed['closed_provider']).toBe('stand-in');
      expect(await processGone(pid)).toBe(true);
      const reopened = valueOf<Record<string, any>>(await call(client, 'open_binary', { path: target }));
      expect(reopened['analysis_run'].run_id).not.toBe(opened['analysis_run'].run_id);
      valueOf(await call(client, 'close_binary'));
      const idleAgain = valueOf<Record<string, any>>(await call(client, 'binary_session'));
      expect(idleAgain['process_lineage']).toEqual({ status: 'not_observed' });
    });

    it('should keep retained Evidence when another target is opened, with a fresh run', async () => {
      valueOf(await call(client, 'close_binary'));
      const first = valueOf<Record<string, any>>(await call(client, 'open_binary', { path: target }));
      const record = valueOf<EvidenceRecord>(await call(client, 'describe_target'));
      const other = join(dir, 'other.bin');
      writeFileSync(other, Buffer.from('MZ other target'));
      const second = valueOf<Record<string, any>>(await call(client, 'open_binary', { path: other }));
      expect(second['reused']).toBe(false);
      expect(second['target']).toMatchObject({ format: 'pe', size: 15 });
      expect(second['analysis_run'].run_id).not.toBe(first['analysis_run'].run_id);
      const bundle = valueOf<Record<string, any>>(await call(client, 'get_evidence_bundle'));
      expect(bundle['records']).toEqual([record]);
      const described = valueOf<EvidenceRecord>(await call(client, 'describe_target'));
      expect(described.subject).toMatchObject({ format: 'pe', size: 15 });
      valueOf(await call(client, 'close_binary'));
    });

    it('should refuse unknown and unavailable provider choices with provider_selection', async () => {
      const unknown = diagnosticOf(await call(client, 'open_binary', { path: target, provider_id: 'nope' }));
      expect(unknown.code).toBe('provider_selection');
      expect(unknown.details['reason']).toBe('unknown');
      const absent = diagnosticOf(await call(client, 'open_binary', { path: target, provider_id: 'ghost' }));
      expect(absent.details['reason']).toBe('unavailable');
      const missing = diagnosticOf(await call(client, 'open_binary', { path: join(dir, 'absent.bin') }));
      expect(missing.code).toBe('not_found');
    });

    it('should retain Evidence, export, clear on close even without a target, and import it back', async () => {
      valueOf(await call(client, 'open_binary', { path: target }));
      const record = valueOf<EvidenceRecord>(await call(client, 'describe_target'));
      expect(computeEvidenceId(record)).toBe(record.evidence_id);
      const path = join(dir, 'bundle.json');
      const exported = valueOf<Record<string, any>>(await call(client, 'export_evidence_bundle', { path }));
      expect(exported['record_count']).toBe(1);
      valueOf(await call(client, 'close_binary'));
      const empty = valueOf<Record<string, any>>(await call(client, 'get_evidence_bundle'));
      expect(empty['records']).toEqual([]);
      const cleared = valueOf<Record<string, any>>(await call(client, 'close_binary'));
      expect(cleared).toMatchObject({ closed_target: null, closed_provider: null, cleared_records: 0 });
      const ref = { kind: 'retained-evidence', evidence_id: record.evidence_id };
      const missing = diagnosticOf(await call(client, 'inspect_analysis_view', { source: ref, view: 'summary' }));
      expect(missing.details).toMatchObject({ reason: 'missing', evidence_id: record.evidence_id });
      const imported = valueOf<Record<string, any>>(await call(client, 'import_evidence_bundle', { path }));
      expect(imported['added']).toEqual([record.evidence_id]);
      const bundle = valueOf<Record<string, any>>(await call(client, 'get_evidence_bundle'));
      expect(bundle).toEqual({ format: 'rea-evidence-bundle', records: [record], version: 1 });
      const filtered = valueOf<Record<string, any>>(
        await call(client, 'get_evidence_bundle', { detail: 'summary', filters: { operation: 'describe_target' } }),
      );
      expect(filtered['records'].map((s: { evidence_id: string }) => s.evidence_id)).toEqual([record.evidence_id]);
      const refused = diagnosticOf(await call(client, 'get_evidence_bundle', { filters: { operation: 'x' } }));
      expect(refused.code).toBe('invalid_request');
      valueOf(await call(client, 'close_binary'));
    });

    it('should send rate-bounded, strictly increasing progress ending in a terminal update before the result', async () => {
      const wire = connected.received;
      wire.length = 0;
      const updates: Array<{ progress: number }> = [];
      const result = await call(
        client,
        'slow_count',
        { steps: 200, delay_ms: 1 },
        { onprogress: (p: never) => updates.push(p) },
      );
      const record = valueOf<EvidenceRecord>(result);
      expect(record.normalized_result).toEqual({ counted: 200 });
      expect(updates.length).toBeGreaterThan(0);
      // On the wire: the progress notifications of this call, then its result.
      const responseAt = wire.findIndex((m) => m['result']?.structuredContent?.evidence_id === record.evidence_id);
      const progress = wire
        .slice(0, responseAt)
        .filter((m) => m['method'] === 'notifications/progress')
        .map((m) => m['params'] as { progress: number; total?: number; message: string });
      expect(responseAt).toBeGreaterThan(0);
      for (let i = 1; i < progress.length; i += 1)
        expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
      expect(progress.every((p) => p.total === undefined)).toBe(true);
      // 202 observations (start, 200 steps, completion): the rate bound (one intermediate update per
      // 100 ms) coalesces them into fewer updates, and the terminal one (the 202nd) precedes the result.
      expect(progress.at(-1)).toMatchObject({ progress: 202, message: expect.stringMatching(/^done: completed/) });
      expect(progress.length).toBeLessThan(202);
      expect(wire.slice(responseAt).filter((m) => m['method'] === 'notifications/progress')).toEqual([]);
      // Without a token: the same kind of result and no progress notification at all.
      wire.length = 0;
      const quiet = valueOf<EvidenceRecord>(await call(client, 'slow_count', { steps: 5, delay_ms: 1 }));
      expect(quiet.normalized_result).toEqual({ counted: 5 });
      expect(wire.filter((m) => m['method'] === 'notifications/progress')).toEqual([]);
    });

    it('should send tool log entries to MCP logging at the level the client set', async () => {
      const wire = connected.received;
      await client.setLoggingLevel('info');
      wire.length = 0;
      const record = valueOf<EvidenceRecord>(await call(client, 'slow_count', { steps: 1, delay_ms: 1 }));
      const logged = wire.filter((m) => m['method'] === 'notifications/message').map((m) => m['params']);
      // The tool's own entry between the phases of the call, each naming the tool.
      expect(logged).toEqual([
        { level: 'info', logger: 'rea', data: { tool: 'slow_count', message: 'started' } },
        { level: 'info', logger: 'rea', data: { tool: 'slow_count', message: 'stand-in counting finished', steps: 1 } },
        {
          level: 'info',
          logger: 'rea',
          data: { tool: 'slow_count', message: 'completed', evidence_id: record.evidence_id },
        },
      ]);
      await client.setLoggingLevel('error');
      wire.length = 0;
      valueOf(await call(client, 'slow_count', { steps: 1, delay_ms: 1 }));
      expect(wire.filter((m) => m['method'] === 'notifications/message')).toEqual([]);
    });

    it('should abort a cancelled call and record nothing', async () => {
      valueOf(await call(client, 'close_binary'));
      const controller = new AbortController();
      const pending = call(
        client,
        'slow_count',
        { steps: 1000, delay_ms: 10 },
        {
          signal: controller.signal,
          onprogress: () => controller.abort(new Error('stop')),
        },
      );
      await expect(pending).rejects.toBeDefined();
      const summary = valueOf<Record<string, any>>(await call(client, 'get_evidence_bundle', { detail: 'summary' }));
      expect(summary['records']).toEqual([]);
      valueOf(await call(client, 'binary_session'));
    });

    it('should drain owned work on close_binary: an in-flight call ends as cancelled and records nothing', async () => {
      valueOf(await call(client, 'close_binary'));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const pending = call(client, 'slow_count', { steps: 10000, delay_ms: 10 }, { onprogress: () => started() });
      await running;
      const closed = valueOf<Record<string, any>>(await call(client, 'close_binary'));
      expect(closed['drained_calls']).toBe(1);
      const error = diagnosticOf(await pending);
      expect(error.code).toBe('cancelled');
      const summary = valueOf<Record<string, any>>(await call(client, 'get_evidence_bundle', { detail: 'summary' }));
      expect(summary['records']).toEqual([]);
    });

    it('should refuse an oversized result by reference, keep it retained, and offer a continuation', async () => {
      const result = await call(client, 'analyze_function', { address: '0x401000', pseudocode_chars: 6_000_000 });
      const error = diagnosticOf(result);
      expect(error.code).toBe('resource_constraint');
      expect(error.details['resource']).toBe('transport');
      const limits = error.details['reported_limits'] as Record<string, any>;
      expect(limits['max_response_bytes']).toBe(10 * 1024 * 1024);
      const ref = limits['evidence_reference'];
      expect(ref.kind).toBe('retained-evidence');
      const summary = valueOf<Record<string, any>>(
        await call(client, 'get_evidence_bundle', { detail: 'summary', filters: { evidence_id: ref.evidence_id } }),
      );
      expect(summary['records'][0]).toMatchObject({ operation: 'analyze_function', procedure_address: '0x401000' });
      expect(summary['records'][0].bytes).toBeGreaterThan(6_000_000);
      const continuation = limits['continuation'];
      expect(continuation.name).toBe('inspect_analysis_view');
      const page = valueOf<EvidenceRecord<Record<string, any>>>(
        await call(client, continuation.name, continuation.arguments),
      );
      expect(page.evidence_links).toEqual([ref.evidence_id]);
      expect(page.normalized_result['text']).toHaveLength(64);
      expect(page.coverage.next_offset).toBe(64);
    });

    it('should retain an oversized error and deliver a bounded diagnostic by reference', async () => {
      const error = diagnosticOf(await call(client, 'fail_with_large_details', { bytes: 11 * 1024 * 1024 }));
      expect(error.code).toBe('execution_failure');
      const ref = (error.details['reported_limits'] as Record<string, any>)['evidence_reference'];
      const summary = valueOf<Record<string, any>>(
        await call(client, 'get_evidence_bundle', { detail: 'summary', filters: { evidence_id: ref.evidence_id } }),
      );
      expect(summary['records']).toHaveLength(1);
    });

    it('should turn an output-schema violation into internal, never an invalid frame', async () => {
      expect(diagnosticOf(await call(client, 'violate_output_schema')).code).toBe('internal');
    });

    it('should answer 50 concurrent calls', async () => {
      const calls = Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0 ? call(client, 'binary_session') : call(client, 'slow_count', { steps: 2, delay_ms: 5 }),
      );
      const results = await Promise.all(calls);
      expect(results.filter((r) => !r.isError)).toHaveLength(50);
    });
  });
}
