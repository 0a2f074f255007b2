"""Secrets told by their value or their place in free text, and masking them for display.

    find("postgres://app:pw@h/db")     -> [Found(start, end, "PASSWORD")]   the password only
    find("--token=t1 Bearer abc123")   -> the values after a secret-named flag, a credential
    mask(text)                         -> each span found replaced by "••••"

What counts:

    scheme://user:PASSWORD@host        the password of any URL (a DSN too)
    sk-… ghp_… github_pat_… glpat-…    well-known token shapes (OpenAI, GitHub, GitLab, Slack,
    xoxb-… AKIA… eyJ….eyJ….…           AWS, Stripe, Google, Hugging Face, npm, JWTs)
    Bearer … / Basic …                 an HTTP credential
    NAME=value  NAME: value            a value after a secret name (`password=…`, `X-Auth: …`)
    --flag value  --flag=value         a value after a secret-named long option
    {"token": "…"}                     a JSON string under a secret-named key, at any depth

A `${NAME}` placeholder or an already masked value is never a secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MASK = "••••"

# Words that make a name secret wherever they appear (matched in the upper-cased name), plus
# the HTTP headers that carry credentials without saying so.
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL")
SECRET_HEADERS = frozenset({"AUTHORIZATION", "PROXY-AUTHORIZATION", "COOKIE"})
# Looser words, told per word of the name (`GH_PAT`, `AUTH`, `X-Auth`, `DB_PASS`, `oauthToken`):
# a name ending in one of NOT_SECRET_LAST (`AUTH_USERNAME`, `AUTH_URL`) names no secret.
_LOOSE_WORD = re.compile(
    r"^(?:.*AUTH(?!OR(?!I[SZ])).*|(?:GH|GL|GITHUB|GITLAB|ADO|AZURE)?PAT|PASS(?!THR|IVE).*)$"
)
NOT_SECRET_LAST = frozenset(
    {
        "USER",
        "USERNAME",
        "LOGIN",
        "URL",
        "URI",
        "ENDPOINT",
        "HOST",
        "PORT",
        "TYPE",
        "MODE",
        "METHOD",
        "ENABLED",
        "DISABLED",
        "PATH",
        "FILE",
        "DIR",
        "ID",
        "SCOPE",
        "SCOPES",
    }
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")

_TOKEN = re.compile(
    r"""(?<![A-Za-z0-9_-])(?:
        sk-[A-Za-z0-9_-]{8,}
      | [sr]k_(?:live|test)_[A-Za-z0-9]{8,}
      | gh[pousr]_[A-Za-z0-9]{8,}
      | github_pat_[A-Za-z0-9_]{8,}
      | glpat-[A-Za-z0-9_-]{8,}
      | xox[abposr]-[A-Za-z0-9-]{8,}
      | (?:AKIA|ASIA)[0-9A-Z]{16}
      | AIza[0-9A-Za-z_-]{30,}
      | hf_[A-Za-z0-9]{20,}
      | npm_[A-Za-z0-9]{20,}
      | eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}
    )(?![A-Za-z0-9_])""",
    re.VERBOSE,
)
# the password of a URL: up to the last "@" of the authority (people do type a raw "@")
_USERINFO = re.compile(
    r"[A-Za-z][A-Za-z0-9+.-]*://[^\s:@/?#]*:(?P<value>[^\s/?#]+)@(?=[^\s@/?#]*(?:[/?#\s]|$))"
)
_CREDENTIAL = re.compile(
    r"(?i:\b(?:bearer|basic)\s+)(?P<value>[A-Za-z0-9._~+/=-]{6,})(?![A-Za-z0-9._~+/=\"-])"
)
# `name=value` (a query parameter, a libpq keyword, an assignment) or `Name: value` (a header);
# inside a lookahead so that a name not secret (`https:`) does not hide the next one.
_NAMED = re.compile(
    r"(?<![\w.-])(?=(?P<name>[A-Za-z_][\w.-]*)(?:=|:[ \t]*)(?:(?i:bearer|basic)[ \t]+)?"
    r"(?P<value>[^\s&;,'\"]+))"
)
# `"name": "value"` of a JSON text given as one argument (`--config '{"token": "…"}'`), at any
# depth: a string value under a secret-named key (its JSON-escaped form, kept as written)
_JSON_PAIR = re.compile(r'"(?P<name>(?:[^"\\]|\\.)*)"\s*:\s*"(?P<value>(?:[^"\\]|\\.)*)"')
_FLAG = re.compile(
    r"(?<![\w-])(?=(?P<name>--[A-Za-z][\w-]*)(?:=|[ \t]+)(?P<value>[^\s'\"-][^\s'\"]*))"
)


def is_secret_name(name: str) -> bool:
    """Whether a parameter, header, option or query parameter named so holds a secret."""
    upper = name.upper()
    if upper in SECRET_HEADERS or any(word in upper for word in SECRET_WORDS):
        return True
    words = [word.upper() for word in _WORD.findall(name)]
    if not words or words[-1] in NOT_SECRET_LAST:
        return False
    return any(_LOOSE_WORD.match(word) for word in words)


def holds_secret(text: str) -> bool:
    """Whether a value holds a secret (a URL password, a token shape, a credential...)."""
    return bool(find(text))


@dataclass(frozen=True)
class Found:
    """A secret value at text[start:end]; `name` suggests what to call it."""

    start: int
    end: int
    name: str


def find(text: str) -> list[Found]:
    """Every secret value of `text`, in order, none overlapping."""
    found: list[Found] = []
    for match in _USERINFO.finditer(text):
        found.append(Found(match.start("value"), match.end("value"), "PASSWORD"))
    for match in _TOKEN.finditer(text):
        found.append(Found(match.start(), match.end(), "TOKEN"))
    for match in _CREDENTIAL.finditer(text):
        found.append(Found(match.start("value"), match.end("value"), "TOKEN"))
    for pattern in (_NAMED, _FLAG, _JSON_PAIR):
        for match in pattern.finditer(text):
            if is_secret_name(match["name"].lstrip("-")):
                found.append(Found(match.start("value"), match.end("value"), match["name"]))
    return _usable(text, found)


def _usable(text: str, found: list[Found]) -> list[Found]:
    """Drop placeholders, masks and spans inside an earlier one (the first found wins)."""
    kept: list[Found] = []
    for item in sorted(found, key=lambda f: (f.start, -f.end)):
        value = text[item.start : item.end]
        if "${" in value or "•" in value or not value.strip("….\"'"):
            continue  # a placeholder, a mask, or an example (`NAME=…`)
        if kept and item.start < kept[-1].end:
            continue
        kept.append(item)
    return kept


def mask(text: str) -> str:
    """`text` with every secret value found replaced by ••••."""
    for item in reversed(find(text)):
        text = text[: item.start] + MASK + text[item.end :]
    return text
