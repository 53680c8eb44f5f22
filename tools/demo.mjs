// REA's main job on the native example that ships in the repository: compiles examples/native/hello.c
// with the system C compiler (cc, gcc or clang, the first that works) into .tmp/demo/hello, runs
// `rea analyze` on the program with the built executable, exporting the records as an evidence bundle,
// and lists the procedures of the bundle's binary_overview record (the embedded Capstone engine's view).
// Without a compiler it analyses a system program instead (/usr/bin/true, /bin/true or /bin/ls).
// Extra arguments replace the target and options: `npm run demo -- some/file --format json`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './workspace.mjs';

const bin = join(repoRoot, 'packages', 'rea', 'dist', 'bin.cjs');
const args = process.argv.slice(2);

function rea(...rest) {
  const result = spawnSync(process.execPath, [bin, ...rest], { cwd: repoRoot, stdio: 'inherit' });
  return result.status ?? 1;
}

if (args.length > 0) process.exit(rea('analyze', ...args));

const source = join('examples', 'native', 'hello.c');
const out = join('.tmp', 'demo');
const program = join(out, 'hello');
const bundle = join(out, 'hello.evidence.json');
mkdirSync(join(repoRoot, out), { recursive: true });
rmSync(join(repoRoot, program), { force: true });
rmSync(join(repoRoot, bundle), { force: true });

/** Compiles the example with the first compiler that works; returns the program's path, or null. */
function compile() {
  for (const cc of ['cc', 'gcc', 'clang']) {
    const command = [cc, '-O1', '-o', program, source];
    const result = spawnSync(command[0], command.slice(1), { cwd: repoRoot, encoding: 'utf8' });
    if (result.error) continue;
    if (result.status === 0 && existsSync(join(repoRoot, program))) {
      console.log(`> ${command.join(' ')}`);
      return program;
    }
    console.log(`> ${command.join(' ')}  (failed, trying the next compiler)\n${result.stderr.trim()}`);
  }
  return null;
}

let target = compile();
if (target === null) {
  target = ['/usr/bin/true', '/bin/true', '/bin/ls'].find((p) => existsSync(p)) ?? null;
  if (target === null) {
    console.error('No C compiler (cc, gcc, clang) and no system program to analyse were found.');
    process.exit(1);
  }
  console.log(`No C compiler found (cc, gcc, clang): analysing the system program ${target} instead.`);
}

// A clone has no `rea` on PATH: show the command as it runs here.
console.log(`> node packages/rea/dist/bin.cjs analyze ${target} --export ${bundle}\n`);
const status = rea('analyze', target, '--export', bundle);
if (status !== 0) process.exit(status);

const records = JSON.parse(readFileSync(join(repoRoot, bundle), 'utf8')).records;
const overview = records.find((r) => r.operation === 'binary_overview');
if (!overview) {
  console.error('The bundle holds no binary_overview record: the native engine did not open the program.');
  process.exit(1);
}
const result = overview.normalized_result;
const list = result.first_procedures;
console.log(
  `\nProcedures in the binary_overview record (${list.length} of ${result.procedure_count}, by address), ` +
    `read back from ${bundle}:`,
);
const width = Math.max(...list.map((p) => p.name.length));
for (const p of list) {
  console.log(
    `  ${p.address.padEnd(10)} ${p.name.padEnd(width)}  ${p.kind.padEnd(8)} ${p.source.padEnd(11)} ${p.size} bytes`,
  );
}
