"""How Loki starts what must not outlive it: an MCP server under the supervisor, a shell
command's process group registered with the guard (both in supervisor.py)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

log = logging.getLogger(__name__)

SUPERVISOR = Path(__file__).with_name("supervisor.py")
# Inside a PyInstaller bundle sys.executable is Loki itself: it runs the supervisor when
# this is its first argument (loki_desktop/__main__.py), before anything else is imported.
SUPERVISOR_FLAG = "--loki-supervisor"
SUPPORTED = os.name == "posix"


def supervisor_argv(*args: str) -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, SUPERVISOR_FLAG, *args]
    # -S: no site-packages to scan, the supervisor needs the standard library only
    return [sys.executable, "-S", str(SUPERVISOR), *args]


def find_command(command: str, env: dict[str, str]) -> str:
    """The program's full path, as the system would find it with this environment's PATH.

    Raises FileNotFoundError (or PermissionError) now, since behind the supervisor the
    failure would only show as a server that stopped at start.
    """
    path = env.get("PATH", os.environ.get("PATH", os.defpath))
    found = shutil.which(command, path=path)
    if found is not None:
        return found
    if os.sep in command and os.path.exists(command):
        raise PermissionError(13, "not executable", command)
    raise FileNotFoundError(2, "command not found", command)


def supervised(command: str, args: list[str], env: dict[str, str]) -> tuple[str, list[str]]:
    """The command line that runs `command` under the supervisor (or as is, on Windows,
    where the MCP SDK already puts each server in a Job object that dies with Loki)."""
    program = find_command(command, env)
    if not SUPPORTED:
        return program, args
    argv = supervisor_argv("wrap", str(os.getpid()), "--", program, *args)
    return argv[0], argv[1:]


class Guard:
    """The guard process of this Loki process, started at the first shell command."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._pid = 0

    def hold(self, pgid: int) -> None:
        self._send(f"+{pgid}\n")

    def release(self, pgid: int) -> None:
        self._send(f"-{pgid}\n")

    def _send(self, line: str) -> None:
        if not SUPPORTED:
            return
        with self._lock:
            if (
                self._process is None
                or self._pid != os.getpid()
                or self._process.poll() is not None
            ):
                self._start()
            stdin = self._process.stdin if self._process is not None else None
            if stdin is None:
                return
            try:
                stdin.write(line.encode())
                stdin.flush()
            except OSError as exc:
                log.warning("the process guard is gone: %s", exc)

    def _start(self) -> None:
        # its own session: a Ctrl+C or a closed terminal reaches Loki, not the guard;
        # the pipe's write end stays with Loki only (never inherited), so it ends with Loki
        self._process = subprocess.Popen(
            supervisor_argv("guard"),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._pid = os.getpid()

    def close(self) -> None:
        """End the guard now: the groups it holds end with it (tests; Loki just exits)."""
        with self._lock:
            if self._process is not None:
                with contextlib.suppress(OSError):
                    assert self._process.stdin is not None
                    self._process.stdin.close()
                self._process.wait()
                self._process = None


GUARD = Guard()
