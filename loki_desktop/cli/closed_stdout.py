"""A command whose reader went away (`loki-desktop mcp test x | head -1`) ends quietly."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def run_quietly(body: Callable[[], int]) -> int:
    """Runs `body`; when its standard output is a pipe closed by the reader, stops without a
    traceback (exit status 1), as Python's documentation advises (signal, "Note on SIGPIPE")."""
    try:
        try:
            return body()
        finally:
            sys.stdout.flush()  # what is still buffered fails here, not in the exit handler
    except BrokenPipeError:
        # stdout points at /dev/null so that the flush at interpreter exit does not fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
