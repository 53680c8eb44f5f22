// A synthetic catalog of 30 tools shaped like REA's own contracts (objects and root unions, paging,
// retained Evidence references, Evidence outputs), used by the schema tests and by the schema
// benchmark when the composed catalog of the `rea-mcp` package is not built. zod and @rea/evidence are
// passed in, so the same module serves TypeScript tests and plain benchmark scripts.

/**
 * @param {{ z: typeof import('zod').z, evidence: typeof import('@rea/evidence') }} deps
 * @returns {{ tools: Array<Record<string, any>>, records: { capture: any, overview: any } }}
 */
export function createSyntheticCatalog({ z, evidence }) {
  const { RetainedEvidenceRefSchema, EvidenceRecordSchema, JsonValueSchema, Sha256HexSchema } = evidence;
  const hints = (readOnlyHint, destructiveHint, idempotentHint, openWorldHint) => ({
    readOnlyHint,
    destructiveHint,
    idempotentHint,
    openWorldHint,
  });
  const READ = hints(true, false, true, false);
  const RECORD = hints(false, false, true, false);
  const WRITE = hints(false, false, false, false);
  const DISCARD = hints(false, true, false, false);
  const FOREIGN = hints(false, true, false, true);
  const OPEN = hints(false, false, false, true);

  const address = z
    .string()
    .regex(/^0x[0-9a-f]{1,16}$/)
    .describe('Virtual address: 0x followed by lowercase hex digits.')
    .meta({ examples: ['0x401000'] });
  const offset = z.number().int().min(0).default(0).describe('Index of the first item to return.');
  const limit = z.number().int().min(1).max(500).default(64).describe('Largest number of items to return.');
  const evidenceInput = z
    .union([RetainedEvidenceRefSchema, EvidenceRecordSchema])
    .describe('A retained Evidence reference, or a complete Evidence record.');
  const symbol = z.strictObject({
    name: z.string().describe('Symbol name as the binary declares it.'),
    address: address,
    size: z.number().int().min(0).nullable().describe('Size in bytes, or null when unknown.'),
    kind: z.enum(['function', 'object', 'section', 'file', 'unknown']).describe('Symbol kind.'),
  });
  const page = (items) =>
    z.strictObject({
      items: z.array(items),
      total: z.number().int().min(0),
      next_offset: z.number().int().min(0).nullable(),
    });
  const capture = z.strictObject({
    url: z.string().url(),
    title: z.string(),
    status: z.number().int(),
    scripts: z.array(z.strictObject({ url: z.string(), sha256: Sha256HexSchema, bytes: z.number().int().min(0) })),
    requests: z.array(
      z.strictObject({
        method: z.string(),
        url: z.string(),
        status: z.number().int().nullable(),
        resource_type: z.enum(['document', 'script', 'stylesheet', 'image', 'xhr', 'fetch', 'other']),
      }),
    ),
    storage: z.strictObject({ cookies: z.number().int().min(0), local_storage_keys: z.array(z.string()) }),
  });
  const webmcp = z.strictObject({
    tools: z.array(z.strictObject({ name: z.string(), description: z.string(), input_schema: JsonValueSchema })),
  });
  const scenario = z.strictObject({
    steps: z.array(
      z.strictObject({
        action: z.enum(['navigate', 'click', 'type', 'wait']),
        target: z.string().nullable(),
        events: z.array(z.strictObject({ sequence: z.number().int(), kind: z.string(), detail: JsonValueSchema })),
      }),
    ),
    final: capture,
  });

  const evidenceTool = (name, title, description, input, result, examples, annotations) => ({
    name,
    title,
    description,
    input,
    output: evidence.evidenceRecordSchemaFor(result),
    annotations,
    examples,
  });
  const resultTool = (name, title, description, input, result, examples, annotations) => ({
    name,
    title,
    description,
    input,
    output: result,
    annotations,
    examples,
  });
  const empty = z.strictObject({});
  const ok = z.strictObject({ ok: z.literal(true) });
  const ref = (hex) => ({ kind: 'retained-evidence', evidence_id: `ev_${hex.repeat(64)}` });

  const observation = (operation, normalized_result) => ({
    operation,
    subject: null,
    provider: { id: 'browser', name: 'Chromium DevTools', version: '1.0.0' },
    analysis_profile: null,
    parameters: {},
    normalized_result,
    raw_result: null,
    confidence: 'observed',
    limitations: [],
    coverage: { status: 'complete', reasons: [] },
    locations: [],
    evidence_links: [],
  });
  const captureValue = {
    url: 'https://example.test/',
    title: 'Example',
    status: 200,
    scripts: [{ url: 'https://example.test/app.js', sha256: 'a'.repeat(64), bytes: 1024 }],
    requests: [{ method: 'GET', url: 'https://example.test/', status: 200, resource_type: 'document' }],
    storage: { cookies: 0, local_storage_keys: [] },
  };
  const records = {
    capture: evidence.sealEvidence(observation('inspect_web_page', captureValue)),
    overview: evidence.sealEvidence(observation('binary_overview', { format: 'elf', functions: 12 })),
  };

  const tools = [
    resultTool(
      'binary_session',
      'Session and catalog identity',
      'Reports the server identity, the active target and provider binding, and the availability of every tool for this session. Call it first, with {}, to choose a callable operation.',
      z.strictObject({
        expected_package_version: z.string().optional().describe('Package version the caller expects.'),
        expected_catalog_digest: Sha256HexSchema.optional().describe('Catalog digest the caller expects.'),
      }),
      z.strictObject({
        package_version: z.string(),
        catalog_digest: Sha256HexSchema,
        target: z.string().nullable(),
        tool_availability: z.array(
          z.strictObject({ name: z.string(), available: z.boolean(), reason: z.string().nullable() }),
        ),
      }),
      [{ input: {} }, { input: { expected_catalog_digest: 'b'.repeat(64) } }],
      READ,
    ),
    resultTool(
      'open_binary',
      'Open a target',
      'Opens a file or directory as the active target and binds a deep-analysis provider. Use provider_id "auto" unless a specific engine is wanted. Returns the target identity and the binding.',
      z.strictObject({
        path: z.string().min(1).describe('Path of the file or directory to analyze.'),
        provider_id: z.string().default('auto').describe('Provider id, or "auto".'),
        architecture: z.enum(['x86', 'x86_64', 'arm', 'arm64']).optional().describe('Slice of a universal binary.'),
      }),
      z.strictObject({ run_id: z.string(), format: z.string(), sha256: Sha256HexSchema, provider_id: z.string() }),
      [{ input: { path: '/tmp/app' } }, { input: { path: '/tmp/app', provider_id: 'capstone' } }],
      WRITE,
    ),
    resultTool(
      'close_binary',
      'Close the target',
      'Closes the active target, stops its provider and clears the session ledger. Retained Evidence is discarded.',
      empty,
      ok,
      [{ input: {} }],
      DISCARD,
    ),
    evidenceTool(
      'binary_overview',
      'Binary overview',
      'Summarizes the active target: format, architecture, entry point, sections, imports and exports counts. Use it before deeper analysis.',
      empty,
      z.strictObject({
        format: z.string(),
        architecture: z.string(),
        entry: address.nullable(),
        sections: z.number().int(),
        imports: z.number().int(),
        exports: z.number().int(),
      }),
      [{ input: {} }],
      RECORD,
    ),
    evidenceTool(
      'list_functions',
      'List functions',
      'Lists the functions the provider recovered, a page at a time, optionally filtered by a name substring. Returns names, addresses and sizes.',
      z.strictObject({ filter: z.string().optional().describe('Case-insensitive name substring.'), offset, limit }),
      page(symbol),
      [{ input: {} }, { input: { filter: 'main', limit: 10 } }],
      RECORD,
    ),
    evidenceTool(
      'list_symbols',
      'List symbols',
      'Lists the symbol table of the active target, a page at a time. Returns names, addresses, sizes and kinds.',
      z.strictObject({ kind: symbol.shape.kind.optional(), offset, limit }),
      page(symbol),
      [{ input: { kind: 'function' } }],
      RECORD,
    ),
    evidenceTool(
      'list_imports',
      'List imports',
      'Lists imported symbols with the library that provides each. Use it to see which platform APIs a binary depends on.',
      z.strictObject({ library: z.string().optional().describe('Only imports from this library.'), offset, limit }),
      page(z.strictObject({ name: z.string(), library: z.string().nullable(), address: address.nullable() })),
      [{ input: {} }],
      RECORD,
    ),
    evidenceTool(
      'list_exports',
      'List exports',
      'Lists exported symbols of the active target, a page at a time, with addresses and kinds.',
      z.strictObject({ offset, limit }),
      page(symbol),
      [{ input: { offset: 64 } }],
      RECORD,
    ),
    evidenceTool(
      'list_strings',
      'List strings',
      'Lists printable strings with their locations, a page at a time, optionally by minimum length and encoding.',
      z.strictObject({
        min_length: z.number().int().min(2).max(256).default(4).describe('Shortest string to report.'),
        encoding: z.enum(['ascii', 'utf16le', 'any']).default('any').describe('Which encodings to scan.'),
        offset,
        limit,
      }),
      page(z.strictObject({ value: z.string(), address: address, encoding: z.enum(['ascii', 'utf16le']) })),
      [{ input: {} }, { input: { min_length: 8, encoding: 'ascii' } }],
      RECORD,
    ),
    evidenceTool(
      'list_sections',
      'List sections',
      'Lists sections or segments with addresses, sizes, permissions and entropy.',
      empty,
      z.array(
        z.strictObject({
          name: z.string(),
          address: address,
          size: z.number().int(),
          permissions: z.string().regex(/^[r-][w-][x-]$/),
          entropy: z.number().min(0).max(8),
        }),
      ),
      [{ input: {} }],
      RECORD,
    ),
    evidenceTool(
      'disassemble_function',
      'Disassemble a function',
      'Disassembles the function at an address into instructions with bytes, mnemonics, operands and branch targets.',
      z.strictObject({
        address: address,
        max_instructions: z.number().int().min(1).max(10000).default(2000).describe('Instruction budget.'),
      }),
      z.strictObject({
        function: symbol,
        instructions: z.array(
          z.strictObject({
            address: address,
            bytes: z.string().regex(/^[0-9a-f]*$/),
            mnemonic: z.string(),
            operands: z.string(),
            targets: z.array(address),
          }),
        ),
      }),
      [{ input: { address: '0x401000' } }],
      RECORD,
    ),
    evidenceTool(
      'decompile_function',
      'Decompile a function',
      'Decompiles the function at an address to pseudocode with the engine of the bound provider. Pseudocode is inferred, not observed.',
      z.strictObject({ address: address }),
      z.strictObject({ function: symbol, pseudocode: z.string(), language: z.literal('c-like') }),
      [{ input: { address: '0x401000' } }],
      RECORD,
    ),
    evidenceTool(
      'find_references',
      'Find references',
      'Finds code and data references to an address or a symbol name. Give exactly one of address or name.',
      z.union([
        z.strictObject({ address: address, offset, limit }).describe('By address'),
        z.strictObject({ name: z.string().min(1).describe('Symbol name.'), offset, limit }).describe('By name'),
      ]),
      page(z.strictObject({ from: address, to: address, kind: z.enum(['call', 'jump', 'read', 'write', 'data']) })),
      [{ input: { address: '0x401000' } }, { input: { name: 'main' } }],
      RECORD,
    ),
    evidenceTool(
      'search_bytes',
      'Search bytes',
      'Searches the target for a byte pattern (hex, with ?? wildcards) or a string, returning matching addresses.',
      z.discriminatedUnion('mode', [
        z.strictObject({
          mode: z.literal('hex').describe('Search mode.'),
          pattern: z
            .string()
            .regex(/^([0-9a-f?]{2} ?)+$/)
            .describe('Hex bytes, ?? for any byte.'),
          limit,
        }),
        z.strictObject({
          mode: z.literal('text').describe('Search mode.'),
          text: z.string().min(1).describe('Text to find.'),
          encoding: z.enum(['ascii', 'utf16le']).default('ascii').describe('Text encoding.'),
          limit,
        }),
      ]),
      page(z.strictObject({ address: address, section: z.string().nullable() })),
      [{ input: { mode: 'hex', pattern: '55 48 89 e5' } }, { input: { mode: 'text', text: 'password' } }],
      RECORD,
    ),
    evidenceTool(
      'inspect_archive',
      'Inspect an archive',
      'Lists the entries of a ZIP, ASAR, APK or IPA container with sizes, hashes and anomalies such as overlapping entries or path traversal.',
      z.strictObject({
        path: z.string().min(1).describe('Path of the archive.'),
        max_entries: z.number().int().min(1).max(100000).default(10000).describe('Entry budget.'),
      }),
      z.strictObject({
        format: z.enum(['zip', 'asar', 'apk', 'ipa']),
        entries: z.array(
          z.strictObject({
            path: z.string(),
            size: z.number().int(),
            compressed_size: z.number().int().nullable(),
            sha256: Sha256HexSchema.nullable(),
          }),
        ),
        anomalies: z.array(z.strictObject({ kind: z.string(), path: z.string(), message: z.string() })),
      }),
      [{ input: { path: '/tmp/app.zip' } }],
      RECORD,
    ),
    evidenceTool(
      'extract_archive_entry',
      'Extract an archive entry',
      'Extracts one entry of an archive into a fresh directory, refusing paths that escape it. Returns where the file was written and its hash.',
      z.strictObject({
        path: z.string().min(1).describe('Path of the archive.'),
        entry: z.string().min(1).describe('Entry path inside the archive.'),
        destination: z.string().min(1).describe('A directory that does not exist yet.'),
      }),
      z.strictObject({ written: z.string(), sha256: Sha256HexSchema, size: z.number().int() }),
      [{ input: { path: '/tmp/app.zip', entry: 'lib/a.so', destination: '/tmp/out' } }],
      hints(false, false, false, false),
    ),
    evidenceTool(
      'analyze_javascript_application',
      'Analyze a JavaScript application',
      'Analyzes an Electron or JavaScript application: entry points, module graph, IPC channels, source maps and security-relevant settings.',
      z.strictObject({
        path: z.string().min(1).describe('Application directory, .asar or .app bundle.'),
        include_source_maps: z.boolean().default(true).describe('Resolve source maps when present.'),
        max_modules: z.number().int().min(1).max(50000).default(5000).describe('Module budget.'),
      }),
      z.strictObject({
        entry_points: z.array(z.string()),
        modules: z.number().int(),
        ipc_channels: z.array(z.strictObject({ name: z.string(), direction: z.enum(['main', 'renderer', 'both']) })),
        settings: z.record(z.string(), JsonValueSchema),
      }),
      [{ input: { path: '/tmp/app.asar' } }],
      RECORD,
    ),
    evidenceTool(
      'inspect_web_page',
      'Inspect a web page',
      'Loads a URL in a loopback-controlled browser and captures scripts, requests and storage. Returns a capture usable by compare_web_captures.',
      z.strictObject({
        url: z.string().url().describe('Page URL.'),
        wait_ms: z.number().int().min(0).max(60000).default(2000).describe('Settle time after load.'),
      }),
      capture,
      [{ input: { url: 'https://example.test/' } }],
      OPEN,
    ),
    evidenceTool(
      'discover_webmcp_tools',
      'Discover WebMCP tools',
      'Lists the WebMCP tools a page registers, with their declared input schemas.',
      z.strictObject({ url: z.string().url().describe('Page URL.') }),
      webmcp,
      [{ input: { url: 'https://example.test/' } }],
      OPEN,
    ),
    evidenceTool(
      'capture_browser_scenario',
      'Capture a browser scenario',
      'Drives a page through a scripted scenario (navigate, click, type, wait) and records events at every step. Runs foreign code.',
      z.strictObject({
        url: z.string().url().describe('Start URL.'),
        steps: z
          .array(
            z.strictObject({
              action: z.enum(['navigate', 'click', 'type', 'wait']).describe('Step action.'),
              target: z.string().optional().describe('CSS selector or URL.'),
              text: z.string().optional().describe('Text to type.'),
              wait_ms: z.number().int().min(0).max(60000).optional().describe('Wait duration.'),
            }),
          )
          .min(1)
          .max(100)
          .describe('Steps, in order.'),
      }),
      scenario,
      [{ input: { url: 'https://example.test/', steps: [{ action: 'click', target: '#login' }] } }],
      FOREIGN,
    ),
    evidenceTool(
      'compare_web_captures',
      'Compare web captures',
      'Compares two captures of a page: passive inspections or scenario captures. Returns added, removed and changed scripts, requests and storage.',
      z.union([
        z
          .strictObject({
            before: z
              .strictObject({ inspection: capture, webmcp: webmcp.nullable().optional() })
              .describe('Earlier passive capture.'),
            after: z
              .strictObject({ inspection: capture, webmcp: webmcp.nullable().optional() })
              .describe('Later passive capture.'),
          })
          .describe('Passive'),
        z
          .strictObject({
            before_scenario: scenario.describe('Earlier scenario capture.'),
            after_scenario: scenario.describe('Later scenario capture.'),
            normalization: z
              .strictObject({ rules: z.array(z.string()) })
              .default({ rules: [] })
              .describe('Normalization rules.'),
          })
          .describe('Scenario'),
      ]),
      z.strictObject({
        added: z.array(z.string()),
        removed: z.array(z.string()),
        changed: z.array(z.strictObject({ key: z.string(), before: JsonValueSchema, after: JsonValueSchema })),
      }),
      [{ input: { before: { inspection: captureValue }, after: { inspection: captureValue, webmcp: null } } }],
      RECORD,
    ),
    evidenceTool(
      'compare_evidence',
      'Compare two Evidence records',
      'Compares the normalized results of two Evidence records of the same operation and reports the differences.',
      z.strictObject({ before: evidenceInput, after: evidenceInput }),
      z.strictObject({
        operation: z.string(),
        differences: z.array(z.strictObject({ path: z.string(), before: JsonValueSchema, after: JsonValueSchema })),
      }),
      [
        { input: { before: ref('1'), after: ref('2') } },
        { input: { before: records.capture, after: records.overview } },
      ],
      RECORD,
    ),
    evidenceTool(
      'verify_evidence_record',
      'Verify an Evidence record',
      'Verifies a complete Evidence record given inline: schema, analysis profile digest and evidence_id.',
      z.strictObject({ record: EvidenceRecordSchema.describe('The complete record to verify.') }),
      z.strictObject({ valid: z.boolean(), computed_id: z.string() }),
      [{ input: { record: records.overview }, description: 'Only inline records are accepted.' }],
      READ,
    ),
    evidenceTool(
      'inspect_analysis_view',
      'Inspect an analysis view',
      'Pages through a retained Evidence record without re-running its provider, with a digest of the selected facts.',
      z.strictObject({
        evidence: RetainedEvidenceRefSchema.describe('The record to page through.'),
        path: z.string().default('').describe('JSON pointer into normalized_result.'),
        offset,
        limit,
      }),
      z.strictObject({ items: z.array(JsonValueSchema), digest: Sha256HexSchema, next_offset: z.number().nullable() }),
      [{ input: { evidence: ref('3') } }],
      READ,
    ),
    resultTool(
      'export_evidence_bundle',
      'Export an Evidence bundle',
      'Writes the session ledger, or selected records, to a bundle file published atomically.',
      z.strictObject({
        destination: z.string().min(1).describe('Bundle file to create.'),
        evidence_ids: z.array(evidence.EvidenceIdSchema).optional().describe('Only these records.'),
      }),
      z.strictObject({ path: z.string(), records: z.number().int(), sha256: Sha256HexSchema }),
      [{ input: { destination: '/tmp/bundle.json' } }],
      WRITE,
    ),
    resultTool(
      'import_evidence_bundle',
      'Import an Evidence bundle',
      'Reads a bundle file, verifies every record and adds them to the session ledger.',
      z.strictObject({ path: z.string().min(1).describe('Bundle file to read.') }),
      z.strictObject({ imported: z.number().int(), evidence_ids: z.array(evidence.EvidenceIdSchema) }),
      [{ input: { path: '/tmp/bundle.json' } }],
      WRITE,
    ),
    evidenceTool(
      'trace_native_calls',
      'Trace native calls',
      'Runs the target under LLDB and records calls to the given functions with arguments and return values.',
      z.strictObject({
        functions: z.array(z.string().min(1)).min(1).max(64).describe('Function names to trace.'),
        arguments: z.array(z.string()).default([]).describe('Command-line arguments for the target.'),
        timeout_ms: z.number().int().min(100).max(600000).default(30000).describe('Deadline.'),
      }),
      z.strictObject({
        calls: z.array(
          z.strictObject({
            function: z.string(),
            thread: z.number().int(),
            args: z.array(z.string()),
            ret: z.string().nullable(),
          }),
        ),
        exit_code: z.number().int().nullable(),
      }),
      [{ input: { functions: ['open'] } }],
      FOREIGN,
    ),
    evidenceTool(
      'capture_process_scenario',
      'Capture a process scenario',
      'Starts the target, feeds it input, signals it, and records output, exit status and process lineage.',
      z.strictObject({
        arguments: z.array(z.string()).default([]).describe('Command-line arguments.'),
        stdin: z.string().optional().describe('Text written to standard input.'),
        signals: z
          .array(
            z.strictObject({
              signal: z.enum(['SIGINT', 'SIGTERM', 'SIGHUP']).describe('Signal.'),
              after_ms: z.number().int().min(0).describe('Delay.'),
            }),
          )
          .default([])
          .describe('Signals to send.'),
        environment: z.record(z.string(), z.string()).optional().describe('Extra environment variables.'),
      }),
      z.strictObject({
        stdout: z.string(),
        stderr: z.string(),
        exit_code: z.number().int().nullable(),
        elapsed_ms: z.number(),
      }),
      [{ input: {} }, { input: { stdin: 'hello\n', signals: [{ signal: 'SIGINT', after_ms: 500 }] } }],
      FOREIGN,
    ),
    resultTool(
      'list_android_devices',
      'List Android devices',
      'Lists attached Android devices and emulators known to adb with their state and ABI.',
      empty,
      z.array(z.strictObject({ serial: z.string(), state: z.string(), abi: z.string().nullable() })),
      [{ input: {} }],
      hints(true, false, true, true),
    ),
    evidenceTool(
      'inspect_apk',
      'Inspect an APK',
      'Reads an APK statically: manifest, permissions, components, signing certificates and DEX summary.',
      z.strictObject({ path: z.string().min(1).describe('Path of the APK.') }),
      z.strictObject({
        package: z.string(),
        permissions: z.array(z.string()),
        components: z.array(
          z.strictObject({
            kind: z.enum(['activity', 'service', 'receiver', 'provider']),
            name: z.string(),
            exported: z.boolean(),
          }),
        ),
        certificates: z.array(z.strictObject({ subject: z.string(), sha256: Sha256HexSchema })),
      }),
      [{ input: { path: '/tmp/app.apk' } }],
      RECORD,
    ),
    resultTool(
      'annotate_symbol',
      'Annotate a symbol',
      'Renames a symbol or attaches a comment in the analyst metadata of the active target. Overwrites an earlier annotation.',
      z.strictObject({
        address: address,
        name: z.string().min(1).optional().describe('New symbol name.'),
        comment: z.string().max(4000).nullable().optional().describe('Comment text; null removes it.'),
      }),
      ok,
      [{ input: { address: '0x401000', name: 'check_license' } }],
      DISCARD,
    ),
  ];
  return { tools, records };
}
