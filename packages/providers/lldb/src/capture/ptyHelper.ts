/**
 * The pseudo-terminal helper: a short Python 3 program (standard library only, so nothing is compiled
 * when REA is installed) that opens a PTY, starts the target on it as a session leader, copies the
 * terminal's output to its stdout and takes commands as JSON lines on its stdin:
 * `{"w": base64}` writes to the terminal, `{"resize": [columns, rows]}`, `{"eof": true}` sends the
 * terminal's end-of-file character, `{"signal": n}` signals the target (its own unreaped child, so the
 * pid cannot name another process). Status lines go to stderr: `{"child": pid}`, `{"signal": n,
 * "result": ...}`, `{"exit": code, "signal": n}`; `{"exec_error": message}` when the target cannot start.
 */
export const PTY_HELPER = String.raw`
import base64, errno, fcntl, json, os, pty, select, signal, struct, sys, termios

def status(obj):
    os.write(2, (json.dumps(obj) + "\n").encode())

cols, rows = int(sys.argv[1]), int(sys.argv[2])
argv = sys.argv[3:]
rfd, wfd = os.pipe()
pid, fd = pty.fork()
if pid == 0:
    os.close(rfd)
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    fcntl.fcntl(wfd, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
    try:
        os.execv(argv[0], argv)
    except OSError as error:
        os.write(wfd, str(error).encode())
    os._exit(127)
os.close(wfd)
failure = os.read(rfd, 4096)
os.close(rfd)
if failure:
    status({"exec_error": failure.decode(errors="replace")})
status({"child": pid})
stdin_open = True
buffered = b""
exit_status = None
while True:
    readers = [fd] + ([0] if stdin_open else [])
    try:
        ready, _, _ = select.select(readers, [], [], 0.05)
    except InterruptedError:
        continue
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError as error:
            data = b""
        if data:
            os.write(1, data)
        elif exit_status is None:
            _, exit_status = os.waitpid(pid, 0)
    if 0 in ready:
        chunk = os.read(0, 65536)
        if not chunk:
            stdin_open = False
        buffered += chunk
        while b"\n" in buffered:
            line, buffered = buffered.split(b"\n", 1)
            command = json.loads(line)
            if "w" in command:
                os.write(fd, base64.b64decode(command["w"]))
            elif "resize" in command:
                c, r = command["resize"]
                fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", r, c, 0, 0))
            elif "eof" in command:
                veof = termios.tcgetattr(fd)[6][termios.VEOF]
                os.write(fd, veof if isinstance(veof, bytes) else b"\x04")
            elif "signal" in command:
                try:
                    os.kill(pid, command["signal"])
                    result = "delivered"
                except ProcessLookupError:
                    result = "not-running"
                except PermissionError:
                    result = "denied"
                status({"signal": command["signal"], "result": result, "pid": pid})
    if exit_status is None:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            exit_status = code
    if exit_status is not None:
        # Drain what the terminal still holds, then report.
        while True:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                break
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            os.write(1, data)
        if os.WIFSIGNALED(exit_status):
            status({"exit": None, "signal": os.WTERMSIG(exit_status)})
        else:
            status({"exit": os.WEXITSTATUS(exit_status), "signal": None})
        sys.exit(0)
`;
