// Schema projection benchmark. Projects the whole tool catalog into its advertised form in both
// profiles and prints the projection time, the tools/list bytes of each profile, the median and
// largest input schema and the bytes per tool. The reference is zod's own z.toJSONSchema on the same
// contracts in the same run (what an SDK advertises when handed the zod schemas directly).
//
// Uses the composed catalog of the built `rea-mcp` package when packages/rea/dist exists, else the
// synthetic catalog of bench/schema/syntheticCatalog.mjs (or when BENCH_SCHEMA_CATALOG=synthetic).
// Run after building: node bench/schema/run.mjs
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import * as evidence from '@rea/evidence';
import { COMPACT_INPUT_SCHEMA_BUDGET, advertiseCatalog, outputJsonSchema } from '@rea/schema';
import { createSyntheticCatalog } from './syntheticCatalog.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

async function loadCatalog() {
  const entry = join(root, 'packages', 'rea', 'dist', 'index.js');
  if (existsSync(entry) && process.env.BENCH_SCHEMA_CATALOG !== 'synthetic') {
    const rea = await import(pathToFileURL(entry).href);
    return { source: 'rea createDefaultTools() (packages/rea/dist)', tools: await rea.createDefaultTools() };
  }
  return {
    source: 'synthetic catalog (bench/schema/syntheticCatalog.mjs)',
    tools: createSyntheticCatalog({ z, evidence }).tools,
  };
}

const bytes = (value) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The tools/list result a host receives: the advertised fields of every tool. */
const toolsList = (entries) => ({ tools: entries });

function timed(fn) {
  const samples = [];
  const cpu = [];
  // Two warm-up runs so the figures compare steady-state code, not JIT warm-up.
  fn();
  let result = fn();
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    result = fn();
    const used = process.cpuUsage(cpuStart);
    samples.push(performance.now() - start);
    cpu.push((used.user + used.system) / 1000);
  }
  return { result, ms: median(samples), cpuMs: median(cpu) };
}

function reference(tools) {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }),
    outputSchema: z.toJSONSchema(tool.output, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }),
    annotations: tool.annotations,
  }));
}

function figures(entries) {
  const inputs = entries.map((entry) => bytes(entry.inputSchema));
  const list = bytes(toolsList(entries));
  return {
    list,
    perTool: list / entries.length,
    medianInput: median(inputs),
    largestInput: Math.max(...inputs),
    largestName: entries[inputs.indexOf(Math.max(...inputs))].name,
    overBudget: inputs.filter((size) => size > COMPACT_INPUT_SCHEMA_BUDGET).length,
  };
}

const { source, tools } = await loadCatalog();
const advertised = (catalog) =>
  catalog.tools.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
  }));

const zodRun = timed(() => reference(tools));
const fullRun = timed(() => advertiseCatalog(tools, 'full'));
const compactRun = timed(() => advertiseCatalog(tools, 'compact'));

const rows = [
  ['zod z.toJSONSchema (reference)', zodRun.ms, figures(zodRun.result), zodRun.cpuMs],
  ['@rea/schema full', fullRun.ms, figures(advertised(fullRun.result)), fullRun.cpuMs],
  ['@rea/schema compact', compactRun.ms, figures(advertised(compactRun.result)), compactRun.cpuMs],
];

const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
const table = [
  [
    'projection',
    'time (ms)',
    'tools/list',
    'bytes/tool',
    'median input',
    'largest input',
    `inputs > ${COMPACT_INPUT_SCHEMA_BUDGET} B`,
  ],
  ...rows.map(([label, ms, f]) => [
    label,
    ms.toFixed(1),
    kb(f.list),
    `${Math.round(f.perTool)} B`,
    `${f.medianInput} B`,
    `${f.largestInput} B (${f.largestName})`,
    String(f.overBudget),
  ]),
];
const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)) + 2);
console.log(`catalog: ${source}: ${tools.length} tools; median of ${RUNS} runs`);
for (const row of table)
  console.log(
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('')
      .trimEnd(),
  );
const [, zodMs, zodF, zodCpu] = rows[0];
for (const [label, ms, f, cpuMs] of rows.slice(1)) {
  console.log(
    `${label} vs zod: time ×${(ms / zodMs).toFixed(2)} wall, ×${(cpuMs / zodCpu).toFixed(2)} CPU, tools/list bytes ×${(f.list / zodF.list).toFixed(2)}, largest input ×${(f.largestInput / zodF.largestInput).toFixed(2)}`,
  );
}
const full = fullRun.result;
const compact = compactRun.result;
console.log(`reduced (compact): ${compact.reduced.length === 0 ? 'none' : compact.reduced.join(', ')}`);
console.log(
  `portability: full ${full.tools.filter((t) => t.portability.passed).length}/${full.tools.length}, compact ${compact.tools.filter((t) => t.portability.passed).length}/${compact.tools.length}`,
);
const envelope = bytes(outputJsonSchema(evidence.evidenceRecordSchemaFor(z.strictObject({}))));
const outputs = full.tools.map((t) => bytes(t.outputSchema));
const outputTotal = outputs.reduce((a, b) => a + b, 0);
console.log(
  `output schemas: ${Math.round(outputTotal / outputs.length)} B/tool on average (${((100 * outputTotal) / bytes(toolsList(advertised(full)))).toFixed(0)}% of full tools/list); the Evidence envelope alone is ${envelope} B`,
);
const perField = ['description', 'inputSchema', 'outputSchema', 'annotations'].map((field) => {
  const total = advertised(full).reduce((sum, tool) => sum + bytes(tool[field]), 0);
  return `${field} ${Math.round(total / full.tools.length)} B`;
});
console.log(`full profile, average per tool: ${perField.join(', ')}`);
const outputSizes = [...outputs].sort((a, b) => a - b);
console.log(
  `output schemas: median ${median(outputSizes)} B, largest ${outputSizes.at(-1)} B (${full.tools[outputs.indexOf(outputSizes.at(-1))].name})`,
);
const TARGET_BYTES_PER_TOOL = 4096;
for (const [label, , f] of rows.slice(1)) {
  console.log(
    `${label}: ${Math.round(f.perTool)} B/tool against the ${TARGET_BYTES_PER_TOOL} B target (×${(f.perTool / TARGET_BYTES_PER_TOOL).toFixed(2)}): ${f.perTool < TARGET_BYTES_PER_TOOL ? 'met' : 'not met'}`,
  );
}
console.log(`digests: full ${full.digest} compact ${compact.digest}`);
