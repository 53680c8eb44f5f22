// A stand-in external engine (NOT Ghidra, NOT Hopper): a scripted process that speaks REA's bridge
// protocol exactly, for the tests of the Ghidra and Hopper providers. It is started through the real
// launch path by the stand-in launchers in this directory and answers a fixed scripted program.
//
//   node standin-bridge-engine.mjs <scenario.json> <launcher arguments...>
//
// scenario: { engine: "ghidra" | "hopper", version, mode, delay_ms, pseudocode_repeat }
//   mode: "normal" | "slow" (wait delay_ms before the hello) | "hang" (never connect) |
//         "crash" (exit 70 on the first procedures request) | "wrong-digest" | "garbage" (answers the
//         first procedures request with a line that is not JSON)
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { basename, join } from 'node:path';

const [scenarioFile, ...args] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioFile, 'utf8'));
const fail = (message) => {
  process.stderr.write(`stand-in: ${message}\n`);
  process.exit(64);
};

/** Checks the command line the provider built, as the real launcher would need it. */
function targetFromArgs() {
  if (scenario.engine === 'ghidra') {
    const [project, name, importFlag, target, scriptFlag, scriptDir, postFlag, script] = args;
    if (importFlag !== '-import' || scriptFlag !== '-scriptPath' || postFlag !== '-postScript')
      fail(`bad arguments ${args.join(' ')}`);
    if (!existsSync(project) || readdirSync(project).length !== 0)
      fail(`project location ${project} is not a fresh empty directory`);
    if (!existsSync(join(scriptDir, script))) fail(`no bridge script ${script} in ${scriptDir}`);
    // What Ghidra leaves in a project location: the project file and its data directory.
    writeFileSync(join(project, `${name}.gpr`), 'stand-in project\n');
    return target;
  }
  const [executableFlag, target, scriptFlag, script] = args;
  if (executableFlag !== '-e' || scriptFlag !== '-Y' || !existsSync(script)) fail(`bad arguments ${args.join(' ')}`);
  return target;
}

const target = targetFromArgs();
const digest = createHash('sha256').update(readFileSync(target)).digest('hex');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const procedures = [
  { address: '0x401000', name: '_start', size: 16, kind: 'function', source: 'engine' },
  { address: '0x401010', name: 'main', size: 32, kind: 'function', source: 'engine' },
  { address: '0x401030', name: 'helper', size: 16, kind: 'function', source: 'engine' },
];
const calls = { '0x401000': ['0x401010'], '0x401010': ['0x401030'], '0x401030': [] };
const info = (p) => {
  const callers = Object.keys(calls).filter((k) => calls[k].includes(p.address)).length;
  const end = `0x${(Number(p.address) + p.size).toString(16)}`;
  return {
    ...p,
    end,
    instruction_count: 2,
    basic_block_count: 1,
    caller_count: callers,
    callee_count: calls[p.address].length,
    library: null,
  };
};
const byAddressOrName = (value) => procedures.find((p) => p.address === value || p.name === value) ?? null;
const containing = (address) =>
  procedures.find((p) => Number(address) >= Number(p.address) && Number(address) < Number(p.address) + p.size) ?? null;
const page = (rows, { offset, limit, query }, key) => {
  const matching = query ? rows.filter((r) => key(r).toLowerCase().includes(query.toLowerCase())) : rows;
  const items = matching.slice(offset, offset + limit);
  const end = offset + items.length;
  return { items, total: matching.length, next_offset: end < matching.length ? end : null };
};
const instructions = (p) => {
  const second = `0x${(Number(p.address) + 5).toString(16)}`;
  const callee = calls[p.address][0];
  return [
    callee
      ? { address: p.address, size: 5, bytes: 'e800000000', mnemonic: 'call', operands: callee }
      : { address: p.address, size: 5, bytes: 'b800000000', mnemonic: 'mov', operands: 'eax, 0x0' },
    { address: second, size: 1, bytes: 'c3', mnemonic: 'ret', operands: '' },
  ];
};
const strings = [{ address: '0x402000', value: 'hello from the stand-in', encoding: 'ascii', section: '.rodata' }];
const names = [
  ...procedures.map((p) => ({ address: p.address, name: p.name, kind: 'function' })),
  { address: '0x402000', name: 's_hello', kind: 'object' },
];

const handlers = {
  health: () => ({ status: 'ready' }),
  document: () => ({
    name: basename(target),
    format: 'elf',
    architecture: 'x86_64',
    bits: 64,
    endianness: 'little',
    entry: '0x401000',
    image_base: '0x400000',
  }),
  procedures: (p) => page(procedures, p, (r) => r.name),
  procedure: ({ address }) => (procedures.find((p) => p.address === address) ? info(byAddressOrName(address)) : null),
  containing_procedure: ({ address }) => containing(address),
  instructions: (p) => page(instructions(byAddressOrName(p.procedure)), p, (r) => r.mnemonic),
  control_flow: ({ procedure }) => {
    const p = byAddressOrName(procedure);
    return {
      blocks: [{ start: p.address, end: `0x${(Number(p.address) + 6).toString(16)}`, instruction_count: 2 }],
      edges: [],
      unresolved: [],
    };
  },
  callers: ({ procedure }) =>
    Object.keys(calls)
      .filter((k) => calls[k].includes(procedure))
      .map((k) => ({ site: k, procedure: k, name: byAddressOrName(k).name, kind: 'call' })),
  callees: ({ procedure }) => ({
    calls: calls[procedure].map((c) => ({
      site: procedure,
      procedure: c,
      name: byAddressOrName(c).name,
      kind: 'call',
    })),
    unresolved: [],
  }),
  references: ({ address }) => ({
    to: Object.keys(calls)
      .filter((k) => calls[k].includes(address))
      .map((k) => ({ from: k, to: address, kind: 'call', from_procedure: k })),
    from: (calls[address] ?? []).map((c) => ({ from: address, to: c, kind: 'call', from_procedure: address })),
  }),
  procedure_references: ({ procedure }) => [
    ...calls[procedure].map((c) => ({ from: procedure, to: c, kind: 'call', from_procedure: procedure })),
    ...(procedure === '0x401010'
      ? [{ from: '0x401015', to: '0x402000', kind: 'data', from_procedure: procedure }]
      : []),
  ],
  strings: (p) => page(strings, p, (r) => r.value),
  string_at: ({ address }) => strings.find((s) => s.address === address) ?? null,
  names: (p) => page(names, p, (r) => r.name),
  name_at: ({ address }) => names.find((n) => n.address === address)?.name ?? null,
  address_of: ({ name }) => names.find((n) => n.name === name)?.address ?? null,
  segments: () => [
    {
      name: '.text',
      start: '0x401000',
      end: '0x402000',
      size: 4096,
      file_offset: 4096,
      readable: true,
      writable: false,
      executable: true,
    },
    {
      name: '.rodata',
      start: '0x402000',
      end: '0x403000',
      size: 4096,
      file_offset: 8192,
      readable: true,
      writable: false,
      executable: false,
    },
  ],
  is_mapped: ({ address }) => Number(address) >= 0x401000 && Number(address) < 0x403000,
  pseudocode: ({ procedure }) => {
    const p = byAddressOrName(procedure);
    const body = `  ${calls[p.address][0] ? `${byAddressOrName(calls[p.address][0]).name}();` : 'return 0;'}\n`;
    return { language: 'c', text: `int ${p.name}(void)\n{\n${body.repeat(scenario.pseudocode_repeat ?? 1)}}\n` };
  },
  // Stand-in high p-code (Ghidra only: Hopper has no p-code): a CALL to the callee, then a RETURN.
  high_pcode: (params) => {
    const p = byAddressOrName(params.procedure);
    const callee = calls[p.address][0];
    const ops = [
      ...(callee ? [{ address: p.address, mnemonic: 'CALL', output: null, inputs: [`ram:${callee}:8`] }] : []),
      { address: info(p).end, mnemonic: 'RETURN', output: null, inputs: ['const:0x0:8'] },
    ];
    return page(ops, params, (op) => op.mnemonic);
  },
  comments: ({ address }) => ({
    comment: address === '0x401010' ? 'stand-in: entry of main' : null,
    inline_comment: null,
  }),
  bookmarks: ({ address }) => (address === '0x401010' ? [{ category: 'Analysis', text: 'stand-in bookmark' }] : []),
};

if (scenario.engine !== 'ghidra') delete handlers.high_pcode;

if (scenario.mode === 'hang') await new Promise(() => setInterval(() => undefined, 60_000));
if (scenario.mode === 'slow') await sleep(scenario.delay_ms ?? 25_000);

const socket = connect(process.env.REA_BRIDGE_SOCKET);
socket.on('error', (error) => fail(`socket: ${error.message}`));
socket.setEncoding('utf8');
const send = (value) => socket.write(`${JSON.stringify(value)}\n`);
send({
  type: 'hello',
  protocol: 'rea-bridge/1',
  token: process.env.REA_BRIDGE_TOKEN,
  engine: { name: scenario.engine === 'ghidra' ? 'Ghidra' : 'Hopper', version: scenario.version },
  imported_sha256: scenario.mode === 'wrong-digest' ? digest.replace(/^./, (c) => (c === '0' ? '1' : '0')) : digest,
});
let buffered = '';
socket.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const request = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (request.method === 'shutdown') {
      send({ id: request.id, result: null });
      socket.end(() => process.exit(0));
      return;
    }
    if (request.method === 'procedures' && scenario.mode === 'crash') {
      process.stderr.write('stand-in: crashing in the middle of a query\n');
      process.exit(70);
    }
    if (request.method === 'procedures' && scenario.mode === 'garbage') {
      socket.write('this is not a bridge answer\n');
      continue;
    }
    const handler = handlers[request.method];
    if (!handler) send({ id: request.id, error: { code: 'unsupported', message: `no method ${request.method}` } });
    else send({ id: request.id, result: handler(request.params ?? {}) });
  }
});
socket.on('close', () => process.exit(0));
