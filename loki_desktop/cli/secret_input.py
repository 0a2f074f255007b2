"""A secret value asked of the person: typed without echo, or read on stdin when piped."""

from __future__ import annotations

import sys


def ask_value(name: str) -> str:
    """A value typed without echo (a secret stays out of the shell history), or read on stdin."""
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass(f"{name} : ")
    return sys.stdin.readline().rstrip("\n")
