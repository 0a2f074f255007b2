"""Stand-alone keeper of Loki's child processes (standard library only: run as `python -S`).

Two modes:

`wrap PARENT -- COMMAND...` sits between Loki and one MCP server. It leads the server's
process group and ends the whole group (the server and any helper it started without
`setsid`) when the server exits, when it is told to stop (SIGTERM, SIGHUP, SIGINT), or
when Loki dies, even by kill -9: on Linux the kernel sends it a signal then
(PR_SET_PDEATHSIG); on macOS and the BSDs a kqueue tells it; elsewhere it looks every
half second.

`guard` reads `+PGID` / `-PGID` lines on its stdin, the process groups of Loki's shell
commands (their background children may outlive the command, not Loki). When the stdin
ends, which the kernel does when Loki exits in any way, it ends every group it holds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

# Kept to what starts fast (no subprocess): every MCP server start waits
# for this process to start first.
GRACE_S = 1.0  # between SIGTERM and SIGKILL
PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class _End(Exception):
    pass


def _raise_end(signum: int, frame: object) -> None:
    for sig in STOP_SIGNALS:  # once is enough: the group is being ended
        signal.signal(sig, signal.SIG_IGN)
    raise _End()


def _watch_parent(parent: int) -> None:
    """Make Loki's death reach us as SIGTERM."""
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
            if os.getppid() != parent:  # died before the call: nobody will tell us
                os.kill(os.getpid(), signal.SIGTERM)
            return
    import threading

    threading.Thread(target=_wait_parent, args=(parent,), daemon=True).start()


def _wait_parent(parent: int) -> None:
    if sys.platform == "darwin" or sys.platform.startswith("freebsd"):
        import select

        # macOS, the BSDs: told at once, no polling
        with contextlib.suppress(OSError):
            event = select.kevent(
                parent,
                filter=select.KQ_FILTER_PROC,
                flags=select.KQ_EV_ADD | select.KQ_EV_ONESHOT,
                fflags=select.KQ_NOTE_EXIT,
            )
            if os.getppid() == parent:
                select.kqueue().control([event], 1, None)
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)


def _end_group(child: int) -> None:
    """SIGTERM the server, give it GRACE_S, then SIGKILL the whole group (us too)."""
    if child:
        try:
            os.kill(child, signal.SIGTERM)
            deadline = time.monotonic() + GRACE_S
            while time.monotonic() < deadline and os.waitpid(child, os.WNOHANG) == (0, 0):
                time.sleep(0.02)
        except (OSError, _End):
            pass
    os.killpg(os.getpgrp(), signal.SIGKILL)


def wrap(parent: int, argv: list[str]) -> int:
    if os.getpgrp() != os.getpid():
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
    for sig in STOP_SIGNALS:
        signal.signal(sig, _raise_end)
    child = 0
    try:
        _watch_parent(parent)
        try:
            child = os.posix_spawn(argv[0], argv, os.environ)
        except OSError as exc:
            print(f"{argv[0]}: {exc.strerror or exc}", file=sys.stderr, flush=True)
            return 127
        # only the server holds the channel: its end is the end of the output
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.waitpid(child, 0)
        child = 0
    except _End:
        pass
    finally:
        _end_group(child)
    return 0  # not reached: _end_group kills us with the group


def guard() -> int:
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    groups: set[int] = set()
    for line in sys.stdin.buffer:
        if line[:1] == b"+" and line[1:].strip().isdigit():
            groups.add(int(line[1:]))
        elif line[:1] == b"-" and line[1:].strip().isdigit():
            groups.discard(int(line[1:]))
    end_groups(groups)
    return 0


def end_groups(groups: set[int]) -> None:
    """SIGTERM every group, SIGKILL those still there after GRACE_S."""
    for pgid in groups:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    alive = set(groups)
    while alive and time.monotonic() < deadline:
        alive = {pgid for pgid in alive if _group_alive(pgid)}
        time.sleep(0.02)
    for pgid in alive:
        _signal_group(pgid, signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def main(args: list[str]) -> int:
    if args[:1] == ["guard"]:
        return guard()
    if len(args) >= 4 and args[0] == "wrap" and args[2] == "--":
        return wrap(int(args[1]), args[3:])
    print("usage: supervisor.py guard | wrap PARENT_PID -- COMMAND...", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
