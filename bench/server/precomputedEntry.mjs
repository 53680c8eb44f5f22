// Bench-only entry: the default composition of `rea` served by @rea/server over stdio with the
// advertised catalog precomputed (read from the JSON file named by argv[2]), to show what start-up
// costs once schema projection is moved out of the cold path.
import { readFileSync } from 'node:fs';
import { createCompositionTools, createDefaultProviders } from 'rea';
import { runStdioServer } from '@rea/server';

const advertised = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const [providers, tools] = await Promise.all([createDefaultProviders(), createCompositionTools()]);
await runStdioServer({ providers, tools, package: { name: 'rea', version: '0.0.0-bench' }, advertised });
