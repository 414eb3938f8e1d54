#!/usr/bin/env python3
"""A small expect-like driver: runs a command under a real pseudo-terminal and types into it.

Usage: pty-drive.py [SCRIPT_JSON]   (or the script as JSON on stdin when no argument is given)

The script is a JSON object:
  {
    "argv": ["node", "bin/tpa", "fund", "approve", "enc_1"],   # required
    "steps": [{"expect": "Amount to release", "send": "\r"}, ...],
                                 # a step may also "touch" a file (created once its text appeared,
                                 # before "send"): it releases a process a test holds (hold-hook.mjs)
    "cwd": "/some/dir",          # optional
    "env": {"NAME": "value"},    # optional, merged over this process's environment (null removes)
    "cols": 120, "rows": 40,     # terminal size
    "step_timeout": 10,          # seconds to wait for each step's text
    "timeout": 20,               # seconds for the whole run, exit included
    "settle_ms": 50              # pause between seeing a prompt and typing into it
  }
Each step waits until its "expect" text appears in the output (ANSI escape sequences stripped)
after the point where the previous step's text matched, then writes "send" (if any; a list of
strings is sent piece by piece with the settle pause between them). A step may have only
"expect" (just wait) or only "send". After the last step the driver waits for the child to exit.

It prints one JSON object to stdout:
  {"exit_code": N | null, "signal": N | null, "output": "...", "raw": "...", "marks": [N, ...], "timed_out": bool,
   "error": null | "why it stopped early", "failed_step": null | index}
It never hangs: on a step or overall timeout the child's process group is killed (SIGKILL) and
the timeout is reported. "raw" is the output as the terminal received it (escapes kept), and
"marks" holds, for each step reached, how many characters of it had arrived when the step's text was
seen: test/helpers/pty.ts draws the screen at that moment. Its own exit status is 0 whenever it could print that report.
"""
import errno
import fcntl
import json
import os
import re
import select
import signal
import struct
import sys
import termios
import time

ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC ... BEL / ST
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[()*+][0-9A-Za-z]"  # charset designation
    r"|\x1b[@-Z\\-_=>78]"  # other two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)


def strip_ansi(text):
    return ANSI.sub("", text)


def load_script():
    raw = sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read()
    script = json.loads(raw)
    if not isinstance(script, dict) or not isinstance(script.get("argv"), list) or not script["argv"]:
        raise ValueError('the script needs "argv", a non-empty list')
    return script


class Child:
    def __init__(self, script):
        env = dict(os.environ)
        for k, v in (script.get("env") or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
        env.setdefault("TERM", "xterm-256color")
        rows, cols = int(script.get("rows", 40)), int(script.get("cols", 120))
        env["COLUMNS"], env["LINES"] = str(cols), str(rows)
        argv = [str(a) for a in script["argv"]]
        cwd = script.get("cwd")
        pid, fd = os.forkpty() if hasattr(os, "forkpty") else __import__("pty").fork()
        if pid == 0:  # the child: its stdin/stdout/stderr are the pty's slave side
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                if cwd:
                    os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            except BaseException as err:  # noqa: BLE001 - report and leave, never return into the driver
                os.write(2, f"pty-drive: cannot run {argv[0]}: {err}\n".encode())
            os._exit(127)
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.pid, self.fd = pid, fd
        self.raw = bytearray()
        self.eof = False
        self.status = None

    def text(self):
        return strip_ansi(self.raw.decode("utf-8", errors="replace"))

    def pump(self, wait):
        """Reads what is available within `wait` seconds; notes EOF."""
        if self.eof:
            time.sleep(min(wait, 0.05))
            return
        ready, _, _ = select.select([self.fd], [], [], max(0.0, wait))
        if not ready:
            return
        try:
            data = os.read(self.fd, 65536)
        except OSError as err:
            if err.errno in (errno.EIO, errno.EBADF):  # Linux: the slave side closed
                data = b""
            else:
                raise
        if data:
            self.raw += data
        else:
            self.eof = True

    def drain(self, seconds):
        """Keeps reading for `seconds` (lets the program finish drawing before it is typed into)."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            self.pump(min(0.05, left))

    def send(self, text):
        data = text.encode("utf-8")
        while data:
            n = os.write(self.fd, data)
            data = data[n:]

    def poll_exit(self):
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.status = status
        return self.status is not None

    def kill(self):
        for target in (lambda: os.killpg(self.pid, signal.SIGKILL), lambda: os.kill(self.pid, signal.SIGKILL)):
            try:
                target()
            except OSError:
                pass
        if self.status is None:
            try:
                _, self.status = os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


def run(script):
    steps = script.get("steps") or []
    step_timeout = float(script.get("step_timeout", 10))
    deadline = time.monotonic() + float(script.get("timeout", 20))
    settle = float(script.get("settle_ms", 50)) / 1000
    child = Child(script)
    result = {"timed_out": False, "error": None, "failed_step": None}
    cursor = 0  # index in the stripped output after the last matched text
    marks = []  # for each step, how many raw characters had arrived when its text was seen

    def fail(index, message, timed_out):
        result.update(error=message, failed_step=index, timed_out=timed_out)
        child.kill()

    try:
        for i, step in enumerate(steps):
            expect = step.get("expect")
            if expect is not None:
                step_deadline = min(deadline, time.monotonic() + float(step.get("timeout", step_timeout)))
                while True:
                    found = child.text().find(expect, cursor)
                    if found >= 0:
                        cursor = found + len(expect)
                        break
                    if child.eof and child.poll_exit():
                        break
                    now = time.monotonic()
                    if now >= step_deadline:
                        break
                    child.pump(min(0.1, step_deadline - now))
                marks.append(len(child.raw.decode("utf-8", errors="replace")))
                if found < 0:
                    if child.eof:
                        fail(i, f"the program ended before {expect!r} appeared (step {i})", False)
                    else:
                        fail(i, f"timed out waiting for {expect!r} (step {i})", True)
                    break
            else:
                marks.append(len(child.raw.decode("utf-8", errors="replace")))
            touch = step.get("touch")
            if touch is not None:
                with open(touch, "a"):
                    pass
            send = step.get("send")
            if send is not None:
                for piece in send if isinstance(send, list) else [send]:
                    child.drain(settle)
                    if child.eof:
                        fail(i, f"the program ended before {piece!r} could be sent (step {i})", False)
                        break
                    child.send(piece)
                if result["error"]:
                    break
        if result["error"] is None:
            # All steps done: read until the program closes the terminal and exits.
            while not (child.eof and child.poll_exit()):
                now = time.monotonic()
                if now >= deadline:
                    fail(None, "timed out waiting for the program to exit", True)
                    break
                child.pump(min(0.1, deadline - now))
                if not child.eof and child.poll_exit():
                    # Exited but a grandchild may hold the terminal: drain briefly, then stop.
                    end = min(deadline, time.monotonic() + 0.5)
                    while not child.eof and time.monotonic() < end:
                        child.pump(0.05)
                    break
    except Exception as err:  # noqa: BLE001 - always report
        fail(None, f"driver error: {err}", False)
    finally:
        if child.status is None:
            child.kill()
        try:
            os.close(child.fd)
        except OSError:
            pass

    status = child.status
    exit_code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
    sig = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else None
    output = child.text().replace("\r\n", "\n")
    raw = child.raw.decode("utf-8", errors="replace")
    return {"exit_code": exit_code, "signal": sig, "output": output, "raw": raw, "marks": marks, **result}


def main():
    try:
        script = load_script()
    except Exception as err:  # noqa: BLE001
        print(json.dumps({"exit_code": None, "signal": None, "output": "", "timed_out": False, "error": f"bad script: {err}", "failed_step": None}))
        return 2
    print(json.dumps(run(script)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
