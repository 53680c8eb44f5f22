/**
 * STAND-IN adb server, for tests only. No Android device or emulator can run where the tests run, so
 * this scripted server listens on 127.0.0.1 and speaks the adb host protocol (the smart-socket requests
 * of the adb client: `host:*`, transport selection, `shell:`/`shell,v2,…:`, `exec:` and `sync:`) with
 * the real `adb` client, answering from a script of devices, files and shell commands. It proves that
 * REA drives the real client correctly; it never proves that anything works on a device.
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/** One file (or directory, when `data` is null) on a scripted device. */
export interface StandInFile {
  /** POSIX mode bits, including the type (0o100644 for a file, 0o40755 for a directory). */
  mode: number;
  data: Buffer | null;
  mtime: number;
}

/** What a scripted shell command answers. */
export interface StandInShellReply {
  stdout?: string | Buffer;
  stderr?: string;
  exit?: number;
}

/** One scripted device. */
export interface StandInDevice {
  serial: string;
  state?: 'device' | 'offline' | 'unauthorized';
  model?: string;
  /** Features the device advertises; they decide which protocol variants the client uses. */
  features?: string[];
  /** Its shell service runs commands on a terminal, as before shell protocol v2: LF becomes CR LF. */
  terminal?: boolean;
  /** Files by absolute path. */
  files?: Map<string, StandInFile>;
  /** Answers a shell command line; undefined answers "not found" with exit 127. */
  shell?: (command: string, device: StandInDevice) => StandInShellReply | undefined;
  /** A pull of this path sends one chunk, then the device disappears (its connection drops). */
  vanishDuringPullOf?: string;
  /** A pull of this path sends one chunk, then nothing more (the transfer stalls) until the client goes. */
  stallDuringPullOf?: string;
  /** What a streamed install answers (default `Success`). */
  installReply?: string;
}

/** A running stand-in server. */
export interface StandInAdbServer {
  port: number;
  /** The value for `ADB_SERVER_SOCKET`. */
  socketSpec: string;
  devices: StandInDevice[];
  /** Every request the client sent, in order (service strings, and sync requests as `sync LIST path`). */
  requests: string[];
  /** Called when a pull has stalled (see {@link StandInDevice.stallDuringPullOf}). */
  stalled?: () => void;
  /** Packages streamed by `adb install`, in order. */
  installs: { serial: string; bytes: Buffer }[];
  close(): Promise<void>;
}

/** Reads exact byte counts from a socket; resolves null once the peer has closed. */
class Reader {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake?.();
    });
    const end = () => {
      this.ended = true;
      this.wake?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  async read(count: number): Promise<Buffer | null> {
    while (this.buffered.length < count) {
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
    const head = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(count);
    return head;
  }
}

const okay = Buffer.from('OKAY');
const hex4 = (n: number) => n.toString(16).padStart(4, '0');
const framed = (text: string | Buffer) => {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(hex4(body.length)), body]);
};
const fail = (socket: Socket, message: string): void =>
  void socket.end(Buffer.concat([Buffer.from('FAIL'), framed(message)]));
const u32 = (...values: number[]) => {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => out.writeUInt32LE(v >>> 0, 4 * i));
  return out;
};
const syncPacket = (id: string, payload: Buffer | number) =>
  typeof payload === 'number'
    ? Buffer.concat([Buffer.from(id), u32(payload)])
    : Buffer.concat([Buffer.from(id), u32(payload.length), payload]);
const shellPacket = (id: number, payload: Buffer) => Buffer.concat([Buffer.from([id]), u32(payload.length), payload]);

function deviceList(devices: StandInDevice[], long: boolean): string {
  return devices
    .map((d, i) => {
      const state = d.state ?? 'device';
      if (!long) return `${d.serial}\t${state}\n`;
      const model = d.model ?? 'Stand_In';
      return `${d.serial.padEnd(22)} ${state} product:standin model:${model} device:standin transport_id:${i + 1}\n`;
    })
    .join('');
}

/** The device a transport request selects, or the adb server's own refusal text. */
function select(devices: StandInDevice[], which: string): StandInDevice | string {
  const online = devices.filter((d) => (d.state ?? 'device') === 'device');
  if (which === 'any' || which === 'usb' || which === 'local') {
    if (online.length === 0) return 'no devices/emulators found';
    if (online.length > 1) return 'more than one device/emulator';
    return online[0]!;
  }
  const device = devices.find((d) => d.serial === which);
  if (!device) return `device '${which}' not found`;
  if ((device.state ?? 'device') !== 'device') return `device ${device.state}`;
  return device;
}

const TRANSPORT = /^host:(?:transport:(.+)|transport-(any|usb|local)|tport:serial:(.+)|tport:(any|usb|local))$/;
const FEATURES = /^host(?:-serial:(.+)|-(usb|local)|):features$/;

/** Serves one client connection: host requests, then (after a transport request) one device service. */
async function serve(socket: Socket, state: StandInAdbServer): Promise<void> {
  const reader = new Reader(socket);
  {
    const length = await reader.read(4);
    if (!length) return;
    const request = (await reader.read(Number.parseInt(length.toString(), 16)))?.toString();
    if (request === undefined) return;
    state.requests.push(request);
    if (request === 'host:version') {
      return void socket.end(Buffer.concat([okay, framed('0029')]));
    } else if (request === 'host:devices' || request === 'host:devices-l') {
      return void socket.end(Buffer.concat([okay, framed(deviceList(state.devices, request.endsWith('-l')))]));
    } else if (FEATURES.test(request) || request === 'host:host-features') {
      const [, serial, kind] = FEATURES.exec(request) ?? [];
      const device = request === 'host:host-features' ? null : select(state.devices, serial ?? kind ?? 'any');
      if (typeof device === 'string') return fail(socket, device);
      const features = device ? (device.features ?? ['shell_v2', 'cmd']) : ['shell_v2', 'cmd'];
      return void socket.end(Buffer.concat([okay, framed(features.join(','))]));
    } else if (TRANSPORT.test(request)) {
      const [, a, b, c, d] = TRANSPORT.exec(request)!;
      const device = select(state.devices, (a ?? b ?? c ?? d)!);
      if (typeof device === 'string') return fail(socket, device);
      const id = Buffer.alloc(8);
      id.writeUInt32LE(state.devices.indexOf(device) + 1);
      socket.write(request.startsWith('host:tport') ? Buffer.concat([okay, id]) : okay);
      return serveDevice(socket, reader, device, state);
    } else {
      return fail(socket, `unknown host service '${request}'`);
    }
  }
}

function runShell(device: StandInDevice, command: string): Required<StandInShellReply> {
  const reply = device.shell?.(command, device);
  if (!reply)
    return { stdout: '', stderr: `/system/bin/sh: ${command.split(' ')[0]}: inaccessible or not found\n`, exit: 127 };
  return { stdout: reply.stdout ?? '', stderr: reply.stderr ?? '', exit: reply.exit ?? 0 };
}

const INSTALL = /^cmd package 'install'.* -S (\d+)/;

/** Serves the one device service a connection asks for once its transport is selected. */
async function serveDevice(socket: Socket, reader: Reader, device: StandInDevice, state: StandInAdbServer) {
  const length = await reader.read(4);
  if (!length) return;
  const service = (await reader.read(Number.parseInt(length.toString(), 16)))?.toString();
  if (service === undefined) return;
  state.requests.push(service);
  const shellV2 = /^shell,v2[^:]*:(.*)$/s.exec(service);
  const shellV1 = /^shell:(.*)$/s.exec(service);
  const exec = /^exec:(.*)$/s.exec(service);
  if (service === 'sync:') {
    socket.write(okay);
    return serveSync(socket, reader, device, state);
  }
  if (exec && INSTALL.test(exec[1]!)) {
    socket.write(okay);
    const bytes = await reader.read(Number(INSTALL.exec(exec[1]!)![1]));
    if (!bytes) return;
    state.installs.push({ serial: device.serial, bytes });
    socket.end(device.installReply ?? 'Success\n');
    return;
  }
  if (shellV2) {
    const reply = runShell(device, shellV2[1]!);
    socket.write(okay);
    const out = Buffer.from(reply.stdout);
    socket.write(shellPacket(1, out));
    if (reply.stderr) socket.write(shellPacket(2, Buffer.from(reply.stderr)));
    socket.end(shellPacket(3, Buffer.from([reply.exit])));
    return;
  }
  if (shellV1 || exec) {
    // A command line ending `; echo <word>$?` runs the command, then prints the word and its status.
    const status = /^(.*); echo (\S+)\$\?$/s.exec((shellV1 ?? exec)![1]!);
    const reply = runShell(device, status ? status[1]! : (shellV1 ?? exec)![1]!);
    const tail = status ? `${status[2]}${reply.exit}\n` : '';
    let out = Buffer.concat([Buffer.from(reply.stdout), Buffer.from(shellV1 ? reply.stderr : ''), Buffer.from(tail)]);
    if (shellV1 && device.terminal) out = Buffer.from(out.toString('latin1').replaceAll('\n', '\r\n'), 'latin1');
    socket.write(okay);
    socket.end(out);
    return;
  }
  fail(socket, `unknown device service '${service}'`);
}

const CHUNK = 64 * 1024;
const syncFail = (message: string) => syncPacket('FAIL', Buffer.from(message));

/** Children of a directory: the scripted files whose parent it is. */
function childrenOf(files: Map<string, StandInFile>, dir: string): [string, StandInFile][] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return [...files]
    .filter(([path]) => path.startsWith(prefix) && !path.slice(prefix.length).includes('/') && path !== prefix)
    .map(([path, file]) => [path.slice(prefix.length), file]);
}

/** The sync service (v1): STAT, LIST, RECV, SEND and QUIT until the client closes. */
async function serveSync(socket: Socket, reader: Reader, device: StandInDevice, state: StandInAdbServer) {
  const files = (device.files ??= new Map());
  for (;;) {
    const header = await reader.read(8);
    if (!header) return;
    const id = header.subarray(0, 4).toString();
    const path = (await reader.read(header.readUInt32LE(4)))?.toString();
    if (path === undefined) return;
    state.requests.push(`sync ${id} ${path}`);
    const file = files.get(path);
    if (id === 'QUIT') return void socket.end();
    if (id === 'STAT') {
      socket.write(
        Buffer.concat([
          Buffer.from('STAT'),
          file ? u32(file.mode, file.data?.length ?? 4096, file.mtime) : u32(0, 0, 0),
        ]),
      );
    } else if (id === 'LIST') {
      for (const [name, child] of childrenOf(files, path)) {
        const entry = Buffer.concat([
          u32(child.mode, child.data?.length ?? 4096, child.mtime, Buffer.byteLength(name)),
          Buffer.from(name),
        ]);
        socket.write(Buffer.concat([Buffer.from('DENT'), entry]));
      }
      socket.write(Buffer.concat([Buffer.from('DONE'), u32(0, 0, 0, 0)]));
    } else if (id === 'RECV') {
      if (!file?.data) {
        socket.write(syncFail(file ? 'is a directory' : 'No such file or directory'));
        continue;
      }
      if (device.vanishDuringPullOf === path) {
        socket.write(syncPacket('DATA', file.data.subarray(0, Math.min(CHUNK, Math.max(1, file.data.length >> 1)))));
        state.devices.splice(state.devices.indexOf(device), 1);
        // Let the chunk reach the client, then drop the connection as a device unplugged mid-transfer.
        return void setTimeout(() => socket.destroy(), 50);
      }
      if (device.stallDuringPullOf === path) {
        socket.write(syncPacket('DATA', file.data.subarray(0, Math.min(CHUNK, Math.max(1, file.data.length >> 1)))));
        state.stalled?.();
        return;
      }
      for (let at = 0; at < file.data.length; at += CHUNK)
        socket.write(syncPacket('DATA', file.data.subarray(at, at + CHUNK)));
      socket.write(syncPacket('DONE', 0));
    } else if (id === 'SEND') {
      const comma = path.lastIndexOf(',');
      const target = path.slice(0, comma);
      const chunks: Buffer[] = [];
      for (;;) {
        const packet = await reader.read(8);
        if (!packet) return;
        const kind = packet.subarray(0, 4).toString();
        if (kind === 'DONE') {
          files.set(target, {
            mode: Number(path.slice(comma + 1)),
            data: Buffer.concat(chunks),
            mtime: packet.readUInt32LE(4),
          });
          socket.write(syncPacket('OKAY', 0));
          break;
        }
        const body = await reader.read(packet.readUInt32LE(4));
        if (!body) return;
        if (kind === 'DATA') chunks.push(body);
      }
    } else {
      return void socket.end(syncFail(`unsupported sync request ${id}`));
    }
  }
}

/** Starts the stand-in server on 127.0.0.1 (an ephemeral port) with the scripted devices. */
export async function startStandInAdbServer(devices: StandInDevice[]): Promise<StandInAdbServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer();
  const state: StandInAdbServer = {
    port: 0,
    socketSpec: '',
    devices,
    requests: [],
    installs: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    serve(socket, state).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.port = typeof address === 'object' && address ? address.port : 0;
  state.socketSpec = `tcp:127.0.0.1:${state.port}`;
  return state;
}
