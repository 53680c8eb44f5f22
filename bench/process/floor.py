# The floor for observe_native_calls: the least a hand-written LLDB Python script does to count the
# calls of one function. One breakpoint, no callback; the script waits for each stop on the debugger's
# listener, counts it and continues (asynchronous mode: measured faster than synchronous Continue()).
# Prints the count.
# Usage: python3 floor.py <lldb-python-dir> <program> <function> [args ...]
import glob, importlib.machinery, importlib.util, os, sys

path, program, function, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, path)
try:
    import lldb
    lldb.SBDebugger
except (ImportError, AttributeError):
    # Debian's python3-lldb links _lldb to a missing name: load liblldb beside the module directly.
    for name in [n for n in sys.modules if n == "lldb" or n.startswith("lldb.") or n == "_lldb"]:
        del sys.modules[name]
    lib = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(path)), "liblldb.so*")))[0]
    loader = importlib.machinery.ExtensionFileLoader("_lldb", lib)
    module = importlib.util.module_from_spec(importlib.util.spec_from_file_location("_lldb", lib, loader=loader))
    loader.exec_module(module)
    sys.modules["_lldb"] = module
    import lldb

# LLDB launches through lldb-server; Debian keeps it under the LLVM prefix, off PATH.
servers = glob.glob(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(path))), "bin", "lldb-server"))
if servers and "LLDB_DEBUGSERVER_PATH" not in os.environ:
    os.environ["LLDB_DEBUGSERVER_PATH"] = servers[0]
debugger = lldb.SBDebugger.Create()
debugger.SetAsync(True)
target = debugger.CreateTarget(program)
target.BreakpointCreateByName(function)
# The program's stdio on files, not on a terminal LLDB relays (measured cheaper per stop).
info = lldb.SBLaunchInfo(args)
for fd in (0, 1, 2):
    info.AddOpenFileAction(fd, "/dev/null", fd == 0, fd != 0)
process = target.Launch(info, lldb.SBError())
listener = debugger.GetListener()
event = lldb.SBEvent()
count = 0
while True:
    if not listener.WaitForEvent(60, event):
        continue
    state = lldb.SBProcess.GetStateFromEvent(event)
    if state == lldb.eStateStopped and not lldb.SBProcess.GetRestartedFromEvent(event):
        count += 1
        process.Continue()
    elif state in (lldb.eStateExited, lldb.eStateCrashed, lldb.eStateDetached):
        break
print(count)
