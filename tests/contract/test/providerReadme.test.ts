import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const example = resolve(root, 'examples', 'providers', 'bytes', 'src', 'provider.ts');
const readme = resolve(root, 'packages', 'provider-kit', 'README.md');

describe('provider-kit README', () => {
  it('should show exactly the example provider the contract suite runs, in under 60 lines', () => {
    const source = readFileSync(example, 'utf8');
    const blocks = [...readFileSync(readme, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(source);
    expect(source.trimEnd().split('\n').length).toBeLessThan(60);
  });

  it('should point at every example provider and the guide', () => {
    const text = readFileSync(readme, 'utf8');
    for (const name of ['bytes', 'scripted-engine', 'line-count']) expect(text).toContain(`examples/providers/${name}`);
    expect(text).toContain('docs/providers.md');
  });
});
