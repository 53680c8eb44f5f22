// MCP prompts for the common investigations, each a short workflow over REA's own tools. A prompt
// only writes instructions; the client's model runs the tools (and sees their Evidence) itself.
import { capEcho } from '@rea/evidence';
import { INVALID_PARAMS, RpcError } from './frames.js';

interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  text(args: Record<string, string>): string;
}

const q = (value: string): string => JSON.stringify(value);

const REPORT =
  'Cite the evidence_id of the record each statement comes from, say what stayed unknown (limitations, ' +
  'partial coverage), and do not guess beyond the Evidence.';

const PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'compare_versions',
    title: 'Compare two versions of an artifact',
    description:
      'Compares two versions of a shipped artifact (package, archive, application bundle or executable): what was added, removed and changed, down to changed functions.',
    arguments: [
      { name: 'old_path', description: 'Local path of the older version.', required: true },
      { name: 'new_path', description: 'Local path of the newer version.', required: true },
    ],
    text: ({ old_path: before = '', new_path: after = '' }) =>
      [
        `Compare the artifact at ${q(before)} (older) with the one at ${q(after)} (newer) using REA's tools.`,
        `1. inspect_artifact {"path": ${q(before)}} and inspect_artifact {"path": ${q(after)}}; keep both evidence_ids.`,
        '2. compare_artifacts with {"left": {"kind": "retained-evidence", "evidence_id": <older id>}, "right": ' +
          '{"kind": "retained-evidence", "evidence_id": <newer id>}} for the entries added, removed and changed.',
        '3. For each changed native executable (ELF, PE, Mach-O), extract it if it is inside a package ' +
          '(extract_artifact), run inspect_binary_layout on both versions and compare imports, sections and mitigations.',
        '4. For the executables that matter, open_binary each version in turn and analyze_function the procedures ' +
          'whose names or sizes changed (list_procedures, search_procedures), then compare_functions with the two ' +
          'retained analyze_function references. close_binary when done.',
        `5. Report what changed and why it may matter. ${REPORT}`,
      ].join('\n'),
  },
  {
    name: 'trace_feature',
    title: 'Trace a feature to the code that implements it',
    description:
      'Follows something visible in a native program (a message, a setting, a URL) to the strings, references and functions that implement it, and how execution reaches them.',
    arguments: [
      { name: 'path', description: 'Local path of the executable (or a package that contains it).', required: true },
      {
        name: 'feature',
        description: 'Text the feature shows or uses: a message, a setting name, a URL or a command.',
        required: true,
      },
    ],
    text: ({ path = '', feature = '' }) =>
      [
        `Find the code behind ${q(feature)} in ${q(path)} using REA's tools.`,
        `1. If ${q(path)} is a package or archive, inspect_artifact {"path": ${q(path)}} and extract_artifact the ` +
          'executables that may hold the feature; otherwise go on with the path itself.',
        '2. open_binary {"path": <executable>} and binary_overview {}.',
        `3. search_strings {"query": ${q(feature)}} (also try shorter or differently cased parts of it); note each address.`,
        '4. xrefs {"address": <string address>} for the code that uses each string, and ' +
          'resolve_containing_procedure {"address": <reference address>} for the procedure that holds it.',
        '5. analyze_function {"procedure": <that procedure>} for what it does, get_call_graph {"procedure": ' +
          '<it>, "direction": "callers"} for who reaches it, and trace_call_path {"from": "main", "to": <it>} for ' +
          'how execution gets there. close_binary when done.',
        `6. Report the chain from entry point to the feature's code. ${REPORT}`,
      ].join('\n'),
  },
  {
    name: 'triage_binary',
    title: 'Triage a binary',
    description:
      'First look at an unknown file: what it is, how it is built and protected, what it imports, and which strings and functions deserve a closer look.',
    arguments: [
      { name: 'path', description: 'Local path of the file to triage.', required: true },
      {
        name: 'focus',
        description: 'Optional: what to look for (e.g. "network access", "licence checks").',
        required: false,
      },
    ],
    text: ({ path = '', focus }) =>
      [
        `Triage the file at ${q(path)} using REA's tools${focus ? `, looking in particular for ${q(focus)}` : ''}.`,
        `1. inspect_artifact {"path": ${q(path)}, "detail": "summary"}: the format, and the contents when it is a package.`,
        `2. If it is a native executable (ELF, PE, Mach-O): inspect_binary_layout {"path": ${q(path)}} for the ` +
          'architecture, sections, imports, exports and mitigations.',
        `3. open_binary {"path": ${q(path)}}, then binary_overview {}, list_procedures {} and search_strings with ` +
          `queries such as "http", "password", "key"${focus ? ` and ${q(focus)}` : ''}.`,
        '4. analyze_function {"procedure": "main"} (or the entry point binary_overview names) and the functions the ' +
          'strings lead to (xrefs, resolve_containing_procedure). close_binary when done.',
        `5. Report what the file is, how it is protected, what it can do and what deserves a closer look. ${REPORT}`,
      ].join('\n'),
  },
];

/** Answers prompts/list: every prompt with its arguments. */
export function listPrompts(): Record<string, unknown> {
  return {
    prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  };
}

/** Answers prompts/get: the workflow of the named prompt for its arguments; anything else is -32602. */
export function getPrompt(params: unknown): Record<string, unknown> {
  const { name, arguments: given } = (typeof params === 'object' && params !== null ? params : {}) as {
    name?: unknown;
    arguments?: unknown;
  };
  const prompt = PROMPTS.find((candidate) => candidate.name === name);
  if (!prompt) {
    const shown = typeof name === 'string' ? capEcho(name, 100) : 'missing';
    throw new RpcError(
      INVALID_PARAMS,
      `Unknown prompt: ${shown}. The prompts are ${PROMPTS.map((p) => p.name).join(', ')}.`,
    );
  }
  const args = (typeof given === 'object' && given !== null ? given : {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  for (const argument of prompt.arguments) {
    const value = args[argument.name];
    if (value === undefined || value === '') {
      if (argument.required) {
        throw new RpcError(
          INVALID_PARAMS,
          `Invalid params for prompts/get: ${prompt.name} needs the argument ${argument.name}.`,
        );
      }
      continue;
    }
    if (typeof value !== 'string') {
      throw new RpcError(INVALID_PARAMS, `Invalid params for prompts/get: argument ${argument.name} must be a string.`);
    }
    values[argument.name] = value;
  }
  return {
    description: prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text: prompt.text(values) } }],
  };
}
