"""Secrets written inside a command line or a URL: moved out as `${NAME}`, put back at launch.

What counts as a secret there (names decided by `config.is_secret_name`):

    GITHUB_TOKEN=ghp_…         an argument `NAME=value` (docker's `-e NAME=value`)
    --api-key sk-…             a long option and the argument after it
    --api-key=sk-…             a long option with its value
    https://h/mcp?api_key=…    a query parameter
    https://me:pass@h/mcp      the password of the URL

The value goes to the keyring under a secret name (the variable, the option upper-cased with
`_`, the query parameter, or PASSWORD), and the text keeps `${NAME}` in its place. Values that
already hold a `${...}` reference are left alone. Secrets in a URL's path cannot be told from
the path itself and stay where they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from urllib.parse import unquote_plus, urlsplit, urlunsplit

from loki_desktop.core.mcp.config import PARAM_NAME_PATTERN, is_secret_name

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.+)", re.DOTALL)
_LONG_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_-]*")
_LONG_OPTION_VALUE = re.compile(r"(--[A-Za-z][A-Za-z0-9_-]*)=(.+)", re.DOTALL)


def placeholder(name: str) -> str:
    return "${" + name + "}"


def expand(text: str, values: Mapping[str, str]) -> str:
    """`text` with each `${NAME}` of `values` replaced by its value (others left as they are)."""
    return PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), text)


def referenced(text: str) -> set[str]:
    """The names `text` refers to as `${NAME}`."""
    return set(PLACEHOLDER.findall(text))


class _Lifted:
    """The secrets found so far, by name; `known` ones (from env or headers) come first."""

    def __init__(self, known: Mapping[str, str]) -> None:
        self.values = dict(known)
        self.new: dict[str, str] = {}

    def take(self, base: str, value: str) -> str:
        """Keep `value` under `base` (or `base_2`... when that name holds another value)."""
        name, number = base, 2
        while name in self.values and self.values[name] != value:
            name, number = f"{base}_{number}", number + 1
        if name not in self.values:
            self.values[name] = self.new[name] = value
        return placeholder(name)


def lift_command(
    command: Sequence[str], known: Mapping[str, str]
) -> tuple[tuple[str, ...], dict[str, str]]:
    """The command with its secret values replaced by placeholders, and the new secrets."""
    lifted = _Lifted(known)
    out: list[str] = [command[0]] if command else []
    index = 1
    while index < len(command):
        arg = command[index]
        following = command[index + 1] if index + 1 < len(command) else ""
        if (match := _LONG_OPTION_VALUE.fullmatch(arg)) and _movable(match[1], match[2]):
            out.append(f"{match[1]}={lifted.take(_option_name(match[1]), match[2])}")
        elif (
            _LONG_OPTION.fullmatch(arg)
            and _movable(arg, following)
            and not following.startswith("-")
        ):
            out += [arg, lifted.take(_option_name(arg), following)]
            index += 1
        elif (match := _ASSIGNMENT.fullmatch(arg)) and _movable(match[1], match[2]):
            out.append(f"{match[1]}={lifted.take(match[1], match[2])}")
        else:
            out.append(arg)
        index += 1
    return tuple(out), lifted.new


def lift_url(url: str, known: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The URL with its password and secret query values replaced by placeholders."""
    lifted = _Lifted(known)
    parts = urlsplit(url)
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    user, colon, password = userinfo.partition(":")
    if at and colon and _movable("PASSWORD", password):
        netloc = f"{user}:{lifted.take('PASSWORD', password)}@{host}"
    pieces = []
    for piece in parts.query.split("&") if parts.query else []:
        key, equals, value = piece.partition("=")
        name = unquote_plus(key)
        if equals and _movable(name, value):
            piece = f"{key}={lifted.take(_param_name(name), value)}"
        pieces.append(piece)
    if not lifted.new:
        return url, {}
    return urlunsplit(parts._replace(netloc=netloc, query="&".join(pieces))), lifted.new


def _movable(name: str, value: str) -> bool:
    return bool(value) and is_secret_name(name) and "${" not in value


def _option_name(option: str) -> str:
    """`--api-key` -> API_KEY."""
    return re.sub(r"[^A-Za-z0-9]", "_", option.lstrip("-")).upper()


def _param_name(name: str) -> str:
    """A query parameter's name as a secret name (kept when valid)."""
    if PARAM_NAME_PATTERN.fullmatch(name):
        return name
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:120]
    return safe if PARAM_NAME_PATTERN.fullmatch(safe) else f"_{safe}"
