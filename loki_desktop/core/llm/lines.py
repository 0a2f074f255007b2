"""Lines of a streamed HTTP answer with a cap: a server can never make one line fill memory.

httpx's `aiter_lines` keeps everything up to the next newline: a server sending a line that
never ends (a broken proxy, a hostile host) grew the process to 8 GB in 45 s. Here the bytes
are split as they arrive and a line longer than the cap stops the answer with LineTooLong.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from loki_desktop.core.i18n import _

# Far past any real event: a whole answer of a big model is rarely 1 MB, and the largest
# real line is a tool call writing a big file whole (a 10 MB write_file is supported, ~12 MB
# once JSON-escaped).
MAX_LINE_BYTES = 32 * 1024 * 1024


class LineTooLong(Exception):
    """A line of the answer passed `limit` bytes (the answer is abnormal)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a line of more than {limit} bytes")
        self.limit = limit


async def capped_lines(
    chunks: AsyncIterator[bytes], limit: int = MAX_LINE_BYTES
) -> AsyncIterator[str]:
    """The lines of `chunks` (without their `\\n` or `\\r\\n`), decoded as UTF-8."""
    pending = bytearray()
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if len(pending) + end - start > limit:
                raise LineTooLong(limit)
            pending += chunk[start:end]
            yield _text(pending)
            pending.clear()
            start = end + 1
        pending += chunk[start:]
        if len(pending) > limit:
            raise LineTooLong(limit)
    if pending:
        yield _text(pending)


def _text(line: bytearray) -> str:
    if line.endswith(b"\r"):
        del line[-1]
    return line.decode("utf-8", errors="replace")


def too_long_sentence(server: str, limit: int) -> str:
    return _(
        "Réponse anormale de {server} : une ligne de plus de {n} Mo ; la réponse est coupée là."
    ).format(server=server, n=limit // (1024 * 1024))


def skipped_sentence(server: str) -> str:
    return _(
        "Une ligne illisible envoyée par {server} a été ignorée (ce n'était pas du JSON) ; "
        "la suite de la réponse est gardée."
    ).format(server=server)
