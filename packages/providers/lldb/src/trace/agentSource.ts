/**
 * The LLDB agent: a Python 3 program that loads LLDB's Python module and speaks line-delimited JSON on
 * its stdio. It reads one request line, answers `{"type":"ready"}` once LLDB is loaded (or
 * `{"type":"error","reason":"lldb-unavailable"}`), then launches the target with a breakpoint per traced
 * function, import or address. The agent's own loop takes each stop from LLDB's listener and handles
 * every thread stopped at a breakpoint before continuing (no round trip to REA, and no script
 * callback, which measured slower): it counts the call and, within the bounds, records the thread, the
 * time (ms since tracing began and wall-clock UTC), the arguments by the platform ABI (x86-64 System V:
 * rdi rsi rdx rcx r8 r9, return rax; AArch64: x0-x7, return x0, return address in lr), bounded C
 * strings, an optional backtrace and, on request, the return value (a breakpoint on each distinct
 * return address, matched to the call by thread and stack pointer). It reports `{"type":"progress"}`
 * twice a second and as tracing ends (the calls counted in all, and per target), then
 * `{"type":"result"}`. With `"attach": true` it reads a second line after ready: `{"attach_pid": N}`
 * attaches to that process (which REA started) and `{"connect": "connect://host:port"}` connects to the
 * gdb-remote server of the emulator REA started. While tracing, a `{"stop": "cancel"}` line (or the end
 * of its stdin) makes it report its progress at once, kill the process and exit without a result.
 */
export const LLDB_AGENT = String.raw`
import glob, importlib.machinery, importlib.util, json, os, re, select, shutil, subprocess, sys, time

def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()

request = json.loads(sys.stdin.readline())

def candidates(explicit):
    if explicit:
        yield explicit
        return
    version = "python%d.%d" % sys.version_info[:2]
    # Where "lldb -P" points, worked out without starting LLDB (which takes seconds): the module under
    # the install prefix of the lldb on PATH.
    lldb_bin = shutil.which("lldb")
    if lldb_bin:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(lldb_bin)))
        for kind in ("dist-packages", "site-packages"):
            yield os.path.join(prefix, "lib", version, kind)
    try:
        printed = subprocess.run(["lldb", "-P"], capture_output=True, text=True, timeout=20).stdout.strip()
        if printed:
            yield printed
    except Exception:
        pass
    yield from sorted(glob.glob("/usr/lib/llvm-*/lib/%s/dist-packages" % version), reverse=True)
    yield from sorted(glob.glob("/usr/lib/llvm-*/lib/python3/dist-packages"), reverse=True)

def load_lldb(explicit):
    problems = []
    for path in candidates(explicit):
        if not os.path.isdir(os.path.join(path, "lldb")):
            problems.append(path + ": no lldb module")
            continue
        sys.path.insert(0, path)
        try:
            import lldb
            if not hasattr(lldb, "SBDebugger"):
                # An empty namespace package (another Python's, or a stray directory) is not LLDB's module.
                raise ImportError("the lldb found there has no SBDebugger (not LLDB's module for this Python)")
            return lldb, path, problems
        except ImportError as error:
            for name in [n for n in sys.modules if n in ("lldb", "_lldb") or n.startswith("lldb.")]:
                del sys.modules[name]
            # Some distributions ship the module with a dangling link to liblldb: load the library directly.
            libs = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(path)), "liblldb.so*")))
            if not libs:
                problems.append("%s: %s" % (path, error))
                sys.path.remove(path)
                continue
            try:
                loader = importlib.machinery.ExtensionFileLoader("_lldb", libs[0])
                spec = importlib.util.spec_from_file_location("_lldb", libs[0], loader=loader)
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                sys.modules["_lldb"] = module
                import lldb
                if not hasattr(lldb, "SBDebugger"):
                    raise ImportError("the lldb found there has no SBDebugger")
                return lldb, path, problems
            except Exception as error2:
                problems.append("%s: %s" % (path, error2))
                sys.path.remove(path)
    return None, None, problems

lldb, found, problems = load_lldb(request.get("pythonpath"))
if lldb is None:
    out({"type": "error", "reason": "lldb-unavailable", "message": "; ".join(problems) or "no LLDB Python module found"})
    sys.exit(0)
if "LLDB_DEBUGSERVER_PATH" not in os.environ:
    for server in sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(found))), "bin", "lldb-server*"))):
        os.environ["LLDB_DEBUGSERVER_PATH"] = server
        break
out({"type": "ready", "version": lldb.SBDebugger.GetVersionString().strip(), "pythonpath": found})
if request.get("attach"):
    # REA starts the target once LLDB is loaded, then names on a second line its PID (attach_pid) or
    # the gdb-remote address of the emulator running it (connect).
    request.update(json.loads(sys.stdin.readline()))

ABI = {
    "x86_64": ("x86-64-sysv", ["rdi", "rsi", "rdx", "rcx", "r8", "r9"], "rax", "rsp"),
    "aarch64": ("aarch64-aapcs64", ["x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"], "x0", "sp"),
    "arm64": ("aarch64-aapcs64", ["x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"], "x0", "sp"),
}
t0 = time.time()

def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + ".%03dZ" % (int(t * 1000) % 1000)
max_events = request["max_events"]
max_string = request["max_string_bytes"]
max_bytes = request["max_event_bytes"]
depth = request["backtrace_depth"]
specs = request["targets"]
stats = [{"calls": 0} for _ in specs]
events = []
bounds = {"dropped": 0, "bytes": 0, "strings_cut": 0}
pending = {}
return_bps = {}
dbg = lldb.SBDebugger.Create()
dbg.SetAsync(True)
# Breakpoints on the first instruction: arguments and the return address are where the ABI puts them.
dbg.HandleCommand("settings set target.skip-prologue false")
error = lldb.SBError()
target = dbg.CreateTarget(request["executable"], None, None, True, error)
if not target.IsValid():
    out({"type": "error", "reason": "target-invalid", "message": str(error)})
    sys.exit(0)
arch = target.GetTriple().split("-")[0]
abi = ABI.get(arch)
if abi is None:
    out({"type": "error", "reason": "unsupported-architecture", "message": arch})
    sys.exit(0)
abi_name, arg_regs, ret_reg, sp_reg = abi
main_module = target.GetModuleAtIndex(0)
process_box = [None]

def read_string(address):
    err = lldb.SBError()
    # Up to max_string + 1 characters come back: one more than the bound shows the string was cut.
    text = process_box[0].ReadCStringFromMemory(address, max_string + 2, err)
    if not err.Success():
        return None
    if len(text.encode("utf-8", "replace")) > max_string:
        bounds["strings_cut"] += 1
        text = text.encode("utf-8", "replace")[:max_string].decode("utf-8", "ignore")
    return text

def on_entry(index, frame):
    stats[index]["calls"] += 1
    spec = specs[index]
    event = None
    if len(events) < max_events and bounds["bytes"] < max_bytes:
        thread = frame.GetThread()
        now = time.time()
        event = {"target": index, "thread": thread.GetIndexID(), "tid": thread.GetThreadID(), "t_ms": int((now - t0) * 1000), "at": iso(now)}
        values = [frame.FindRegister(r).GetValueAsUnsigned() for r in arg_regs[: spec["arguments"]]]
        if values:
            event["args"] = ["0x%x" % v for v in values]
        strings = {}
        for i in spec["string_arguments"]:
            strings[str(i)] = read_string(frame.FindRegister(arg_regs[i]).GetValueAsUnsigned())
        if strings:
            event["strings"] = strings
        if depth:
            event["backtrace"] = ["0x%x" % f.GetPC() for f in thread.frames[1 : depth + 1]]
        bounds["bytes"] += len(json.dumps(event))
        events.append(event)
    else:
        bounds["dropped"] += 1
    if request["returns"]:
        sp = frame.FindRegister(sp_reg).GetValueAsUnsigned()
        if abi_name == "x86-64-sysv":
            err = lldb.SBError()
            ret = process_box[0].ReadPointerFromMemory(sp, err)
            sp += 8
        else:
            ret = frame.FindRegister("lr").GetValueAsUnsigned()
        if ret not in return_bps:
            bp = target.BreakpointCreateByAddress(ret)
            HANDLERS[bp.GetID()] = on_return
            return_bps[ret] = bp
        pending.setdefault(frame.GetThread().GetThreadID(), []).append((sp, event))
    return False

def on_return(frame):
    stack = pending.get(frame.GetThread().GetThreadID(), [])
    sp = frame.FindRegister(sp_reg).GetValueAsUnsigned()
    for k in range(len(stack) - 1, -1, -1):
        if stack[k][0] == sp:
            event = stack[k][1]
            if event is not None:
                event["return"] = "0x%x" % frame.FindRegister(ret_reg).GetValueAsUnsigned()
            del stack[k:]
            break
    return False

# Imports: a scripted breakpoint resolver adds, in each module as it loads, the entry point of every
# code symbol of that name. By-name breakpoints would also take inlined call sites from debug info, and
# for an IFUNC LLDB calls the resolver in the target while it is stopped, which never returns here.
RESOLVER = '''
import lldb
INDIRECT = {}
class EntryPoints:
    def __init__(self, bkpt, extra_args, internal_dict):
        self.bkpt = bkpt
        self.name = extra_args.GetValueForKey("name").GetStringValue(1024)
    def __callback__(self, sym_ctx):
        module = sym_ctx.GetModule()
        for context in module.FindSymbols(self.name):
            symbol = context.GetSymbol()
            if symbol.GetType() == lldb.eSymbolTypeCode:
                self.bkpt.AddLocation(symbol.GetStartAddress())
            elif symbol.GetType() == lldb.eSymbolTypeResolver:
                INDIRECT.setdefault(self.name, set()).add(module.GetFileSpec().GetFilename())
    def __get_depth__(self):
        return lldb.eSearchDepthModule
'''
resolver_dir = os.path.dirname(request["stdout_path"])
with open(os.path.join(resolver_dir, "rea_lldb_entry_points.py"), "w") as resolver_file:
    resolver_file.write(RESOLVER)
dbg.HandleCommand("command script import " + os.path.join(resolver_dir, "rea_lldb_entry_points.py"))
rea_lldb_entry_points = sys.modules["rea_lldb_entry_points"]

HANDLERS = {}
breakpoints = []
for index, spec in enumerate(specs):
    if spec["kind"] == "address":
        address = main_module.ResolveFileAddress(int(spec["name"], 16))
        bp = target.BreakpointCreateBySBAddress(address) if address.IsValid() else None
    elif spec["kind"] == "function":
        bp = target.BreakpointCreateByName(spec["name"], main_module.GetFileSpec().GetFilename())
    else:
        extra = lldb.SBStructuredData()
        extra.SetFromJSON(json.dumps({"name": spec["name"]}))
        bp = target.BreakpointCreateFromScript("rea_lldb_entry_points.EntryPoints", extra, lldb.SBFileSpecList(), lldb.SBFileSpecList(), False)
    if bp is not None:
        HANDLERS[bp.GetID()] = lambda frame, index=index: on_entry(index, frame)
    breakpoints.append(bp)

# LLDB follows the parent across fork() (and takes its breakpoints out of the child): count the forks,
# so that the calls their children make, which are not seen, are stated.
forks = [0]
def on_fork(frame):
    forks[0] += 1
    return False
for name in ("fork", "vfork"):
    extra = lldb.SBStructuredData()
    extra.SetFromJSON(json.dumps({"name": name}))
    bp = target.BreakpointCreateFromScript("rea_lldb_entry_points.EntryPoints", extra, lldb.SBFileSpecList(), lldb.SBFileSpecList(), False)
    HANDLERS[bp.GetID()] = on_fork

launch_error = lldb.SBError()
listener = dbg.GetListener()
initial_stop = False
if request.get("connect"):
    # The emulator opens its gdb-remote port as it starts: try for up to 10 s.
    for attempt in range(200):
        launch_error = lldb.SBError()
        process = target.ConnectRemote(listener, request["connect"], "gdb-remote", launch_error)
        if launch_error.Success():
            break
        time.sleep(0.05)
    # The emulated program waits stopped before its first instruction until continued.
    initial_stop = True
elif request.get("attach_pid"):
    process = target.AttachToProcessWithID(listener, request["attach_pid"], launch_error)
else:
    info = lldb.SBLaunchInfo(request["args"])
    info.SetEnvironmentEntries(["%s=%s" % kv for kv in request["env"].items()], True)
    if request.get("cwd"):
        info.SetWorkingDirectory(request["cwd"])
    info.AddOpenFileAction(0, "/dev/null", True, False)
    info.AddOpenFileAction(1, request["stdout_path"], False, True)
    info.AddOpenFileAction(2, request["stderr_path"], False, True)
    process = target.Launch(info, launch_error)
if not launch_error.Success():
    reason = "connect-failed" if request.get("connect") else "attach-failed" if request.get("attach_pid") else "launch-failed"
    out({"type": "error", "reason": reason, "message": str(launch_error)})
    sys.exit(0)
process_box[0] = process
# Stop at every signal that may end the process (still passed on to it), so that the stop where a
# fatal one arrives is seen: SIGKILL alone cannot be stopped at. Those that cannot end it are left alone.
NOT_FATAL = ("SIGCHLD", "SIGCONT", "SIGURG", "SIGWINCH", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU")
unix_signals = process.GetUnixSignals()
for k in range(unix_signals.GetNumSignals()):
    number = unix_signals.GetSignalAtIndex(k)
    if unix_signals.GetSignalAsCString(number) not in NOT_FATAL:
        unix_signals.SetShouldStop(number, True)
        unix_signals.SetShouldSuppress(number, False)
        unix_signals.SetShouldNotify(number, False)

def disposition(number):
    # Caught or ignored by the program, read from /proc (local processes); None where unknown.
    if request.get("connect"):
        return None
    try:
        with open("/proc/%d/status" % process.GetProcessID()) as status:
            masks = dict(line.split(":", 1) for line in status if line.startswith(("SigCgt", "SigIgn")))
        bit = 1 << (number - 1)
        return "caught" if int(masks["SigCgt"], 16) & bit else "ignored" if int(masks["SigIgn"], 16) & bit else "default"
    except Exception:
        return None

if request.get("attach_pid") and process.GetState() == lldb.eStateStopped:
    # The attach leaves the process stopped: let it run on with the breakpoints in place.
    process.Continue()
event = lldb.SBEvent()
deadline = t0 + request["deadline_ms"] / 1000.0
crash = None
# The last signal the process was given that may end it: a crash only if the process then ends by it.
fatal = None
stopped_by = "exit"
# Set once LLDB has seen the program end: its PID may then be another process's.
program_ended = False
last_progress = time.time()

def progress():
    out({"type": "progress", "calls": sum(s["calls"] for s in stats), "targets": [s["calls"] for s in stats],
         "elapsed_ms": int((time.time() - t0) * 1000)})

def stop_requested():
    # REA writes a stop line when the call is cancelled; an end of stdin means REA is gone.
    if not select.select([0], [], [], 0)[0]:
        return False
    data = os.read(0, 4096)
    return data == b"" or b'"stop"' in data

def end_program():
    # A local program (launched, or attached by PID) is ended by SIGKILL: LLDB 14's SBProcess.Kill can
    # crash the agent when it races the running program's next stop. Over gdb-remote (the emulator)
    # the PID is the stub's idea, so LLDB asks the stub to kill.
    if request.get("connect"):
        process.Kill()
        return
    try:
        os.kill(process.GetProcessID(), 9)
    except OSError:
        pass

while True:
    if time.time() > deadline:
        stopped_by = "deadline"
        break
    if stop_requested():
        progress()
        sys.stdout.flush()
        end_program()
        os._exit(0)
    if time.time() - last_progress > 0.5:
        last_progress = time.time()
        progress()
    if not listener.WaitForEvent(1, event) or not lldb.SBProcess.EventIsProcessEvent(event):
        continue
    state = lldb.SBProcess.GetStateFromEvent(event)
    if state in (lldb.eStateExited, lldb.eStateDetached):
        program_ended = True
        # LLDB 14 reports an end by a signal as that signal's number in the exit status.
        if fatal is not None and state == lldb.eStateExited and process.GetExitStatus() == fatal[0]:
            crash = fatal[1]
            stopped_by = "crash"
        break
    if state == lldb.eStateCrashed:
        stopped_by = "crash"
        break
    if state == lldb.eStateStopped and not lldb.SBProcess.GetRestartedFromEvent(event):
        if initial_stop:
            initial_stop = False
            process.Continue()
            continue
        # Stopped again: the signal given at the last stop, if any, did not end the process.
        fatal = None
        for thread in process:
            reason = thread.GetStopReason()
            if reason == lldb.eStopReasonBreakpoint:
                # Stop data: (breakpoint id, location id) pairs, one for each breakpoint at this location.
                frame = thread.GetFrameAtIndex(0)
                for k in range(0, thread.GetStopReasonDataCount(), 2):
                    handler = HANDLERS.get(thread.GetStopReasonDataAtIndex(k))
                    if handler is not None:
                        handler(frame)
            elif reason in (lldb.eStopReasonSignal, lldb.eStopReasonException):
                description = thread.GetStopDescription(256)
                number = thread.GetStopReasonDataAtIndex(0) if reason == lldb.eStopReasonSignal else 0
                name = process.GetUnixSignals().GetSignalAsCString(number) if number else None
                fault = re.search(r"address[^0-9]*(0x[0-9a-fA-F]+)", description)
                details = {"signal": name, "fault_address": fault.group(1).lower() if fault else None,
                           "pc": "0x%x" % thread.GetFrameAtIndex(0).GetPC(), "thread": thread.GetIndexID(),
                           "description": description}
                if not number:
                    crash = details
                    break
                held = disposition(number)
                if held == "default":
                    # Delivered, it would end the process (and might write a core file): it is the crash.
                    crash = details
                    break
                # Caught or ignored, it is passed on as the process continues, and the process runs on.
                # Where the disposition cannot be read, the crash is the signal the process then ends by.
                fatal = (number, details) if held is None else None
        if crash is not None:
            stopped_by = "crash"
            break
        process.Continue()
progress()
exit_code = process.GetExitStatus() if stopped_by == "exit" else None
result_targets = []
for spec, bp, stat in zip(specs, breakpoints, stats):
    locations = []
    if bp is not None:
        for k in range(bp.GetNumLocations()):
            address = bp.GetLocationAtIndex(k).GetLoadAddress()
            # A location whose module is not (or no longer) loaded has no address: it was never hit.
            if address != lldb.LLDB_INVALID_ADDRESS:
                locations.append("0x%x" % address)
    indirect = sorted(rea_lldb_entry_points.INDIRECT.get(spec["name"], ())) if spec["kind"] == "import" else []
    result_targets.append({"kind": spec["kind"], "name": spec["name"], "status": "traced" if locations else "not-found",
                           "locations": locations, "calls": stat["calls"], "indirect_in": indirect})
out({"type": "result", "abi": abi_name, "started_at": iso(t0), "lldb_version": lldb.SBDebugger.GetVersionString().strip(),
     "targets": result_targets, "events": events, "events_dropped": bounds["dropped"],
     "strings_cut": bounds["strings_cut"], "forks": forks[0], "exit_code": exit_code, "crash": crash, "stopped_by": stopped_by,
     "elapsed_ms": int((time.time() - t0) * 1000)})
sys.stdout.flush()
# The answer is out before the program is ended (at the deadline, or stopped at its crash), so that
# nothing in ending it can lose the observation.
if not program_ended:
    end_program()
os._exit(0)
`;
