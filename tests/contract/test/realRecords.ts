// Real Evidence for the catalog suites: tools of the default composition run in process on small
// inputs made here (a directory artifact, a binary compiled by gcc).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDefaultTools } from 'rea-mcp';
import { parseEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import { compileFixture, quietToolContext } from '@rea/test-helpers';

const contracts = new Map((await createDefaultTools()).map((tool) => [tool.name, tool]));

/** Runs the default composition's tool `name` on `input` and returns its parsed Evidence record. */
export async function produce(name: string, input: unknown): Promise<EvidenceRecord> {
  const outcome = await executeTool(contracts.get(name)! as never, input, quietToolContext());
  if (outcome.kind !== 'evidence') throw new Error(`${name} returned ${outcome.kind}, not Evidence`);
  return parseEvidence(outcome.record);
}

/** Writes a small directory artifact (a text file and a binary file) under `dir`; returns its path. */
export function directoryArtifact(dir: string): string {
  mkdirSync(join(dir, 'app', 'lib'), { recursive: true });
  writeFileSync(join(dir, 'app', 'README.txt'), 'a real directory artifact\n');
  writeFileSync(join(dir, 'app', 'lib', 'data.bin'), Buffer.from([0, 1, 2, 3, 255]));
  return join(dir, 'app');
}

/** Compiles a two-function C program with gcc -O0 under `dir`; returns the binary's path. */
export function helloBinary(dir: string): string {
  const source = join(dir, 'hello.c');
  writeFileSync(source, 'int twice(int x) { return 2 * x; }\nint main(void) { return twice(21) - 42; }\n');
  return compileFixture({ source, compiler: 'gcc', args: ['-O0'], output: 'hello' });
}
