"""Why a server started by `npx` did not answer in time, asked of npm itself.

npx says nothing while it waits on the registry: offline, with a package missing from its
cache, it retries for over a minute before failing. When a handshake times out, two quick
questions to npm tell the person what is missing: is the package in npm's cache (`npm exec
--offline`, which never touches the network), and does the registry answer (`npm ping`,
one try, 5 s)? Both run with the server's environment (npm_config_* included) and end by
themselves within seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Mapping, Sequence
from pathlib import PurePath

from loki_desktop.core.i18n import _
from loki_desktop.core.procs.spawn import find_command

log = logging.getLogger(__name__)

NPX_NAMES = ("npx", "npx.cmd", "npx.exe")
PROBE_LIMIT_S = 20.0
POSIX = os.name == "posix"


def npx_package(command: str, args: Sequence[str]) -> str | None:
    """The package an npx command line runs (`-y @playwright/mcp@0.0.83 ...`), or None."""
    if PurePath(command).name.lower() not in NPX_NAMES:
        return None
    for arg in args:
        if arg.startswith("--package="):
            return arg.split("=", 1)[1] or None
        if not arg.startswith("-"):
            return arg
    return None


async def slow_start_reason(package: str, env: Mapping[str, str], waited_s: float) -> str:
    """One sentence: what kept npx from starting `package` within `waited_s` seconds."""
    waited = f"{waited_s:g}"
    cached = await _succeeds(
        ["exec", "--offline", "--yes", f"--package={package}", "--", "node", "-e", ""], env
    )
    if cached is None:
        return _(
            "npx n'a pas démarré {package} en {n} s, et npm ne répond pas : vérifiez "
            "l'installation de Node.js."
        ).format(package=package, n=waited)
    if cached:
        return _(
            "{package} est dans le cache de npm, mais le serveur n'a pas répondu en {n} s : "
            "il démarre encore (machine chargée ?). Il sera relancé au prochain message."
        ).format(package=package, n=waited)
    if await _succeeds(["ping", "--fetch-retries=0", "--fetch-timeout=5000"], env):
        return _(
            "npx télécharge encore {package} (premier démarrage) : rien en {n} s. Il sera "
            "relancé au prochain message."
        ).format(package=package, n=waited)
    return _(
        "{package} n'est pas dans le cache de npm et le registre npm est injoignable : "
        "connectez cette machine une fois (ou réglez le proxy ou le registre de npm) pour "
        "que npx le télécharge."
    ).format(package=package)


async def _succeeds(npm_args: list[str], env: Mapping[str, str]) -> bool | None:
    """Whether `npm ARGS` exits 0; None when npm cannot be run or does not end in time."""
    try:
        # not under the supervisor, which does not pass the exit status on: both questions
        # end by themselves within seconds (no network, or one try of 5 s)
        process = await asyncio.create_subprocess_exec(
            find_command("npm", dict(env)),
            *npm_args,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=POSIX,  # its group: what npm started ends with it
        )
    except OSError as exc:
        log.info("npm could not be run: %s", exc)
        return None
    try:
        return await asyncio.wait_for(process.wait(), PROBE_LIMIT_S) == 0
    except TimeoutError:
        return None
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                if POSIX:
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    process.kill()
            await process.wait()
