import { afterAll, beforeAll, expect, jest } from '@jest/globals';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import type { AddressInfo } from 'node:net';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { createBrowserProvider } from '@rea/provider-browser';

const PAGE =
  '<!doctype html><title>contract</title><script src="/app.js"></script><form toolname="search" tooldescription="Search"><input name="q"></form>';
const server = createServer((req, res) =>
  req.url === '/app.js'
    ? res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.ready = true;')
    : res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
);
let origin = '';
// Every example starts a headless Chromium of its own; on a busy machine they take longer than the default.
jest.setTimeout(300_000);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const dir of written) rmSync(dir, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

/**
 * The fresh directories this file's calls wrote screenshots and diff images to, removed at the end. Only
 * these: other test files, running at the same time, have theirs under the same temporary directory.
 */
const written = new Set<string>();

function collect(value: unknown): void {
  if (typeof value === 'string') {
    if (/\/rea-browser-(shots|diff)-[^/]+\/[^/]+$/.test(value)) written.add(dirname(value));
  } else if (Array.isArray(value)) value.forEach(collect);
  else if (typeof value === 'object' && value !== null) Object.values(value).forEach(collect);
}

/**
 * `c`, noting the directories its calls wrote. Everything else is read from `c` when used (not copied):
 * the contract records whether a check used the provider at all by watching those reads.
 */
function tracked(c: CapabilityCheckContext): CapabilityCheckContext {
  const runTool: CapabilityCheckContext['runTool'] = async (name, input, options) => {
    const outcome = await c.runTool(name, input, options);
    if (outcome.kind === 'evidence') collect(outcome.record.normalized_result);
    return outcome;
  };
  return Object.create(c, { runTool: { value: runTool, enumerable: true } }) as CapabilityCheckContext;
}

/**
 * The advertised examples, each on a headless Chromium the call owns (a browser this file kept running
 * would count as a process left behind): a named tab of an external endpoint stands for a page served here.
 */
async function exampleInput(tool: string, input: unknown, context: CapabilityCheckContext): Promise<unknown> {
  const c = tracked(context);
  if (tool === 'compare_web_captures') {
    // Retained references stand for captures this file makes of the page served here.
    const retained = async (name: string, args: object) => {
      const outcome = await c.runTool(name, { endpoint: 'owned', url: `${origin}/`, ...args });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      return { kind: 'retained-evidence', evidence_id: outcome.record.evidence_id };
    };
    const example = input as Record<string, unknown>;
    if ('before' in example) {
      const inspection = await retained('inspect_web_page', {});
      return { before: { inspection }, after: { inspection } };
    }
    const capture = await retained('capture_browser_scenario', { actions: [{ action: 'wait', ms: 1 }] });
    return { ...example, before_scenario: capture, after_scenario: capture };
  }
  if (tool === 'compare_web_screenshots') {
    // Retained references stand for two screenshots this file takes of the page served here.
    const outcome = await c.runTool('capture_web_screenshot', { endpoint: 'owned', url: `${origin}/` });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    const shot = { kind: 'retained-evidence', evidence_id: outcome.record.evidence_id };
    return { ...(input as object), before: shot, after: shot };
  }
  const { target_id: targetId, ...example } = input as Record<string, unknown>;
  if (targetId !== undefined || example['url'] !== undefined) example['url'] = `${origin}/`;
  // The scenario example's search field and its results: this page's form stands for them.
  if (Array.isArray(example['actions'])) {
    example['actions'] = (example['actions'] as Array<Record<string, unknown>>).map((a) =>
      a['selector'] === '#q' ? { ...a, selector: 'input[name=q]' } : a,
    );
  }
  return { ...example, endpoint: 'owned' };
}

const capabilityProbes: Record<string, (c: CapabilityCheckContext) => Promise<void>> = {
  'browser-scenario': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('capture_browser_scenario', {
      endpoint: 'owned',
      url: `${origin}/`,
      actions: [{ action: 'type', selector: 'input[name=q]', text: 'x' }],
    });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    expect(outcome.record.normalized_result).toMatchObject({ actions: [{ outcome: 'ok' }] });
  },
  'browser-targets': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('list_browser_targets', { endpoint: 'owned' });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    expect((outcome.record.normalized_result as { targets: Array<{ type: string; url: string }> }).targets).toEqual([
      expect.objectContaining({ type: 'page', url: 'about:blank' }),
    ]);
  },
  'webmcp-discovery': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('discover_webmcp_tools', { endpoint: 'owned', url: `${origin}/` });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    expect(outcome.record.normalized_result).toMatchObject({
      instrumented: true,
      tools: [{ name: 'search', source: 'declarative' }],
    });
  },
  'web-capture-comparison': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('inspect_web_page', { endpoint: 'owned', url: `${origin}/` });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    const page = outcome.record.normalized_result;
    const diff = await c.runTool('compare_web_captures', {
      before: { inspection: page },
      after: { inspection: page },
    });
    if (diff.kind !== 'evidence') throw new Error('expected Evidence');
    expect(diff.record.normalized_result).toMatchObject({ family: 'passive', unchanged: true });
  },
  'web-screenshots': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('capture_web_screenshot', {
      endpoint: 'owned',
      url: `${origin}/`,
      selector: 'form',
    });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    expect(outcome.record.normalized_result).toMatchObject({ selector: 'form', width: expect.any(Number) });
  },
  'web-screenshot-comparison': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('capture_web_screenshot', { endpoint: 'owned', url: `${origin}/` });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    const { path } = outcome.record.normalized_result as { path: string };
    const diff = await c.runTool('compare_web_screenshots', { before: { path }, after: { path } });
    if (diff.kind !== 'evidence') throw new Error('expected Evidence');
    expect(diff.record.normalized_result).toMatchObject({ differing_pixels: 0, identical: true });
  },
  'web-page-inspection': async (c: CapabilityCheckContext) => {
    const outcome = await c.runTool('inspect_web_page', { endpoint: 'owned', url: `${origin}/` });
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    expect(outcome.record.normalized_result).toMatchObject({ document: { title: 'contract' } });
  },
};

describeProviderContract('browser (Chrome DevTools Protocol)', () => createBrowserProvider(), {
  exampleInput,
  afterExample: (_tool, outcome) => {
    if (outcome.kind === 'evidence') collect(outcome.record.normalized_result);
  },
  capabilityProbes: Object.fromEntries(
    Object.entries(capabilityProbes).map(([capability, probe]) => [capability, (c) => probe(tracked(c))]),
  ),
});
