"""Secrets written inside a command line or a URL: moved out as `${NAME}`, put back at launch.

What counts as a secret there (names decided by `config.is_secret_name`, values by
`secret_values.find`):

    GITHUB_TOKEN=ghp_…         an argument `NAME=value` (docker's `-e NAME=value`)
    --api-key sk-…             a long option and the argument after it (`--auth`, `--pat`…)
    --api-key=sk-…             a long option with its value
    -p pw                      the password flag of database clients (not a port, not npx's
                               `-p package` before the package)
    Authorization: Bearer …    a header given as an argument (`mcp-remote --header …`)
    https://h/mcp?api_key=…    a query parameter
    postgres://me:pass@h/db    the password of a URL, anywhere (a DSN in the arguments)
    ghp_… sk-… eyJ…            a well-known token shape, anywhere (a URL's path too)

The value goes to the keyring under a secret name (the variable, the option upper-cased with
`_`, the query parameter, the header, or PASSWORD / TOKEN after what holds it), and the text
keeps `${NAME}` in its place. Values that already hold a `${...}` reference are left alone.

`mask_command` and `mask_url` apply the same rules for display, with •••• in place.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from loki_desktop.core.mcp.config import PARAM_NAME_PATTERN, is_secret_name
from loki_desktop.core.mcp.secret_values import MASK, find

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_.-]*)\}")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.+)", re.DOTALL)
_LONG_OPTION = re.compile(r"--[A-Za-z][A-Za-z0-9_-]*")
_LONG_OPTION_VALUE = re.compile(r"(--[A-Za-z][A-Za-z0-9_-]*)=(.+)", re.DOTALL)
_HEADER = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):([ \t]*)(\S.*)", re.DOTALL)
# `-p 8080`, `-p 8080:80`, `-p 127.0.0.1:8080:80/tcp`: a port, not a password
_PORTISH = re.compile(r"[\d.:\[\]]+(?:/[a-z]+)?")
# Programs whose own `-p` means "package" or "python" (before the package they run)
_RUNNERS = frozenset({"npx", "npm", "pnpm", "pnpx", "yarn", "bunx", "bun", "uvx", "uv", "pipx"})


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

    def text(self, text: str, context: str = "") -> str:
        """`text` with every secret value found in it replaced by a placeholder.

        `context` names what holds the text (a variable, an option): a value found alone
        takes that name, a part of it (a URL's password) that name plus _PASSWORD or _TOKEN.
        """
        found = find(text)
        names: list[str] = []
        for item in found:
            if item.name in ("PASSWORD", "TOKEN"):
                whole = item.start == 0 and item.end == len(text)
                base = (
                    context if whole and context else "_".join(filter(None, [context, item.name]))
                )
            elif item.name.startswith("-"):
                base = _option_name(item.name)
            else:
                base = _param_name(item.name)
            names.append(self.take(base, text[item.start : item.end]))
        for item, name in reversed(list(zip(found, names, strict=True))):
            text = text[: item.start] + name + text[item.end :]
        return text


def lift_command(
    command: Sequence[str], known: Mapping[str, str]
) -> tuple[tuple[str, ...], dict[str, str]]:
    """The command with its secret values replaced by placeholders, and the new secrets."""
    lifted = _Lifted(known)
    out: list[str] = [command[0]] if command else []
    runner = bool(command) and _program(command[0]) in _RUNNERS
    positional = False  # a runner's own options come before the first positional argument
    index = 1
    while index < len(command):
        arg = command[index]
        following = command[index + 1] if index + 1 < len(command) else ""
        if _takes_secret(arg, following, runner_option=runner and not positional):
            name = "PASSWORD" if arg == "-p" else _option_name(arg)
            out += [arg, lifted.take(name, following)]
            index += 2
            continue
        out.append(_lift_arg(arg, lifted, _context(command[index - 1])))
        positional = positional or not arg.startswith("-")
        index += 1
    return tuple(out), lifted.new


def _lift_arg(arg: str, lifted: _Lifted, context: str) -> str:
    """One argument that is not the value of a secret flag."""
    if (match := _LONG_OPTION_VALUE.fullmatch(arg)) and _movable(match[1], match[2]):
        return f"{match[1]}={lifted.take(_option_name(match[1]), match[2])}"
    if (match := _ASSIGNMENT.fullmatch(arg)) and _movable(match[1], match[2]):
        return f"{match[1]}={lifted.take(match[1], match[2])}"
    if (match := _HEADER.fullmatch(arg)) and _movable(match[1], match[3]):
        return f"{match[1]}:{match[2]}{lifted.take(_option_name(match[1]), match[3])}"
    if match := _LONG_OPTION_VALUE.fullmatch(arg):
        return f"{match[1]}={lifted.text(match[2], _option_name(match[1]))}"
    if match := _ASSIGNMENT.fullmatch(arg):
        return f"{match[1]}={lifted.text(match[2], match[1])}"
    return lifted.text(arg, context)


def _takes_secret(arg: str, following: str, *, runner_option: bool) -> bool:
    """Whether `arg` is a flag whose value, the next argument, is a secret."""
    if not following or following.startswith("-") or "${" in following:
        return False
    if _LONG_OPTION.fullmatch(arg):
        return is_secret_name(arg)
    return (
        arg == "-p"
        and not runner_option
        and not _PORTISH.fullmatch(following)
        and not following.startswith("@")
    )


def _context(previous: str) -> str:
    """The name a value takes after a long option (`--db postgres://…` -> DB)."""
    return _option_name(previous) if _LONG_OPTION.fullmatch(previous) else ""


def _program(command: str) -> str:
    name = os.path.basename(command.replace("\\", "/")).lower()
    return re.sub(r"\.(exe|cmd|bat)$", "", name)


def lift_url(url: str, known: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The URL with its password, secret query values and tokens replaced by placeholders."""
    lifted = _Lifted(known)
    lifted_url = lifted.text(url)
    return (lifted_url, lifted.new) if lifted.new else (url, {})


def mask_command(command: Sequence[str]) -> tuple[str, ...]:
    """The command as it may be shown: every secret value it holds replaced by ••••."""
    lifted, new = lift_command(command, {})
    return tuple(expand(part, dict.fromkeys(new, MASK)) for part in lifted)


def mask_url(url: str) -> str:
    lifted, new = lift_url(url, {})
    return expand(lifted, dict.fromkeys(new, MASK))


def _joined(context: str, kind: str) -> str:
    """DB_URL + PASSWORD -> DB_URL_PASSWORD; no context -> PASSWORD."""
    return f"{context}_{kind}" if context else kind


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
