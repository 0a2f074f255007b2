"""Argument words read before argparse sees them (argparse alone cannot place them)."""

from __future__ import annotations


def split_server_command(words: list[str]) -> tuple[list[str], list[str]]:
    """`mcp add NAME [options] -- CMD ARGS…` (the convention of other MCP clients' CLIs): the
    words after `--` are the server's command line, kept apart before argparse reads the rest
    (it would take them for positionals it has no room for). Other commands keep their `--`."""
    positionals = [word for word in words if not word.startswith("-")]
    if positionals[:2] != ["mcp", "add"] or "--" not in words:
        return words, []
    cut = words.index("--")
    return words[:cut], words[cut + 1 :]
