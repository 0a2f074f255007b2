"""MCP servers started as real processes by the MCP tests (one script per behaviour)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def script(name: str) -> str:
    """The absolute path of one server script, e.g. script("echo")."""
    return str(HERE / f"{name}.py")


def start_http(name: str, *args: str) -> tuple[subprocess.Popen[str], list[int]]:
    """Start a server script that serves HTTP and names its ports on its first line
    (`PORT <n>`, `PORTS <a> <b> ...`); returns the process (stdout a pipe, stderr dropped)
    and those ports, once something listens on each."""
    process = subprocess.Popen(
        [sys.executable, script(name), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    try:
        ports = [int(word) for word in process.stdout.readline().split()[1:]]  # the start
        for port in ports:
            wait_for_port(port)
    except BaseException:
        process.kill()
        process.communicate()
        raise
    return process, ports


def wait_for_port(port: int, within_s: float = 60) -> None:
    """Until something accepts connections on the loopback port (generous: a process
    starting on a loaded machine)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {port}")


TAG_VARIABLE = "LOKI_TEST_TAG"


def processes_tagged(tag: str) -> list[str]:
    """Processes (alive or zombie) whose environment holds LOKI_TEST_TAG=tag, as "pid state cmd".

    Tests give each server they start a unique tag (a server parameter, so an environment
    variable of the process): other test runs on the machine never match. Reads /proc, so it
    answers on Linux only (an empty list elsewhere).
    """
    found: list[str] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    marker = f"{TAG_VARIABLE}={tag}".encode()
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if marker in environ:
            state = stat.rsplit(")", 1)[1].split()[0]
            found.append(f"{entry.name} {state} {cmdline.strip()}")
    return found


def servers_tagged(tag: str) -> list[str]:
    """The tagged processes but Loki's supervisor (core/procs/supervisor.py), which runs
    each stdio server and carries its environment."""
    return [line for line in processes_tagged(tag) if "supervisor.py wrap" not in line]


def zombie_children(parent: int) -> list[str]:
    """Children of `parent` that exited and were never reaped (state Z)."""
    zombies: list[str] = []
    proc = Path("/proc")
    if not proc.is_dir():
        return zombies
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == parent:
            zombies.append(entry.name)
    return zombies
