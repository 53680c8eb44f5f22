// One timed call of the built @rea/artifact in a fresh process, after a warm-up call on a tiny archive
// (so module loading is not timed, as on a warm MCP connection). Prints one JSON line: the call's wall
// time, its CPU time (every thread of the process: the caller's and its workers'), the process's RSS
// before the call and its peak RSS (VmHWM) after it. REA_ARTIFACT names another build's dist/index.js.
//   node bench/artifact/call.mjs inspect <zip>
//   node bench/artifact/call.mjs extract <zip> <names file> <parent directory>
//   node bench/artifact/call.mjs extract-tool <zip> <names file>
// extract-tool runs the extract_artifact tool as a server does (executeTool: input validation, the
// archive's SHA-256 that names the output, extraction, result validation and sealing), after a
// warm-up call of the tool; its output directory is removed after timing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
const artifact = await import(process.env.REA_ARTIFACT ?? '@rea/artifact');
const { extractArtifact, inspectArtifact } = artifact;
// The host's executeTool, found through @rea/artifact's own dependency on @rea/provider-kit.
const requireFromArtifact = createRequire(createRequire(import.meta.url).resolve('@rea/artifact/package.json'));
const kit = await import(
  pathToFileURL(join(dirname(requireFromArtifact.resolve('@rea/provider-kit/package.json')), 'dist', 'index.js')).href
);
const extractTool = artifact.artifactTools.find((t) => t.name === 'extract_artifact');
const toolContext = () => {
  const noop = () => undefined;
  return {
    session: { target: null, binding: null, run_id: null },
    platform: process.platform,
    signal: new AbortController().signal,
    progress: { report: noop },
    logger: { debug: noop, info: noop, warn: noop, error: noop },
    ledger: null,
    clientFeatures: new Set(),
    supervisor: kit.createCallSupervisor(),
  };
};
async function runTool(input) {
  const outcome = await kit.executeTool(extractTool, input, toolContext());
  if (outcome.kind !== 'evidence') throw new Error(`extract_artifact failed: ${JSON.stringify(outcome).slice(0, 400)}`);
  return outcome.record;
}

const [op, zip, namesFile, parent] = process.argv.slice(2);
const vm = (field) =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;

const warm = mkdtempSync(join(tmpdir(), 'rea-bench-warm-'));
try {
  writeFileSync(join(warm, 'a.txt'), 'warm');
  execFileSync('zip', ['-q', join(warm, 'w.zip'), 'a.txt'], { cwd: warm });
  await inspectArtifact(join(warm, 'w.zip'));
  await extractArtifact(join(warm, 'w.zip'), { parentDirectory: warm });
  if (op === 'extract-tool')
    rmSync((await runTool({ path: join(warm, 'w.zip') })).local.output_directory, { recursive: true });
} finally {
  rmSync(warm, { recursive: true, force: true });
}

let output = null;
let checked = null;
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
/**
 * With REA_BENCH_VERIFY=1 (after timing): every hashed entry's SHA-256 against the machine's own file
 * (the archive holds files of / by their paths), and every extracted file's bytes against it.
 */
function verify(files, root) {
  for (const file of files) {
    const original = readFileSync(`/${file.path}`);
    if (file.sha256 !== sha(original)) throw new Error(`SHA-256 of ${file.path} differs from /${file.path}`);
    if (root !== null && !readFileSync(join(root, file.path)).equals(original))
      throw new Error(`extracted ${file.path} differs from /${file.path}`);
  }
  return files.length;
}
const verifying = process.env.REA_BENCH_VERIFY === '1';
const before = vm('VmRSS');
const cpu = process.cpuUsage();
const start = performance.now();
if (op === 'inspect') {
  const { coverage, inventory } = await inspectArtifact(zip);
  if (coverage.status !== 'complete') throw new Error(`incomplete inventory: ${coverage.reasons.join('; ')}`);
  if (inventory.entries.length === 0) throw new Error('empty inventory');
  // Entries of archives inside the archive (paths through "!/") are not files of the machine.
  const own = (e) => e.kind === 'file' && !e.path.includes('!/');
  if (verifying) checked = () => verify(inventory.entries.filter(own), null);
} else if (op === 'extract-tool') {
  const select = readFileSync(namesFile, 'utf8').trim().split('\n');
  const record = await runTool({ path: zip, select });
  output = record.local.output_directory;
  if (record.normalized_result.files.length !== select.length)
    throw new Error(`extracted ${record.normalized_result.files.length} of ${select.length}`);
  if (verifying) checked = () => verify(record.normalized_result.files, output);
} else {
  const select = readFileSync(namesFile, 'utf8').trim().split('\n');
  const { outputDirectory, result } = await extractArtifact(zip, { parentDirectory: parent, select });
  if (result.files.length !== select.length) throw new Error(`extracted ${result.files.length} of ${select.length}`);
  if (verifying) checked = () => verify(result.files, outputDirectory);
}
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
const peakRss = vm('VmHWM');
const verified = checked === null ? null : checked();
if (output !== null) rmSync(output, { recursive: true, force: true });
console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000, rssBefore: before, peakRss, verified }));
