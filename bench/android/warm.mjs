// Warm-server race: one `rea mcp` over stdio, started once, its calls interleaved run by run with fresh
// runs of the reference tools. Each call names a fresh copy of the input (its own path) so that no
// cache of an earlier call answers it. The first call (code loaded and compiled on first use) is
// reported apart from the median of the later ones. Server CPU per call is read from /proc.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { peakRss, stdioServer } from '../browser/stdio.mjs';

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/** User + system CPU time of a live process so far, in ms. */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function failed(result) {
  if (!result.isError) return null;
  return result.content?.map((c) => c.text).join(' ') ?? 'error';
}

/**
 * `servers`: [label, bin.cjs] of each `rea` build; `calls`: [label, tool, input(path), reference, file,
 * firstOnly] where reference is [command, argv(path)] run fresh before each call on the same file and
 * firstOnly limits the call to the first server (an input the previous build does not take). Returns, per
 * call kind, the reference's samples and each server's first call and later calls (wall, cpu in ms).
 */
export async function warmRace(servers, calls, runs, once) {
  const dir = mkdtempSync(join(tmpdir(), 'rea-bench-android-'));
  const started = [];
  try {
    for (const [label, bin] of servers) {
      const server = stdioServer(process.execPath, [bin, 'mcp']);
      await server.initialize();
      started.push({ label, server });
    }
    const samples = calls.map(() => ({ reference: [], servers: started.map(() => []) }));
    let copies = 0;
    for (let i = 0; i < runs; i++) {
      for (const [k, [, tool, input, [command, argv], file, firstOnly]] of calls.entries()) {
        samples[k].reference.push(once(command, argv(file)));
        for (const [s, { server }] of started.entries()) {
          if (firstOnly && s > 0) continue;
          const copy = join(dir, `${copies++}-${basename(file)}`);
          copyFileSync(file, copy);
          const pid = server.child.pid;
          const cpu = cpuOf(pid);
          const wall = performance.now();
          for (const args of input(copy)) {
            const why = failed(await server.call(tool, args));
            if (why !== null) throw new Error(`${tool} failed: ${why}`);
          }
          samples[k].servers[s].push({ wall: performance.now() - wall, cpu: cpuOf(pid) - cpu });
          rmSync(copy);
        }
      }
    }
    const rss = started.map(({ server }) => peakRss(server.child.pid));
    return { samples, labels: started.map((s) => s.label), rss };
  } finally {
    for (const { server } of started) await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
