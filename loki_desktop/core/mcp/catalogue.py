"""The MCP servers Loki knows by name: label, French description, command, parameters.

Every entry is off until the user turns it on. Commands are built from the user's parameters
at start time, so a missing browser or URL is reported then, with a sentence saying what to set.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from loki_desktop.core.i18n import N_, _
from loki_desktop.core.mcp.config import McpConfigError, is_secret_name


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter a catalogue server needs: an environment variable or part of its command."""

    name: str
    label: str
    description: str
    required: bool = False
    # env: an environment variable; arg: read by the command builder; flag: a check box on
    # the card ("1" when ticked), read by the command builder too
    target: Literal["env", "arg", "flag"] = "env"

    @property
    def secret(self) -> bool:
        return is_secret_name(self.name)


@dataclass(frozen=True, slots=True)
class LaunchContext:
    """What a command builder may need besides the parameters: Loki's data folder."""

    data_home: Path | None = None


CommandBuilder = Callable[[Mapping[str, str], LaunchContext], list[str]]


@dataclass(frozen=True, slots=True)
class CatalogueEntry:
    id: str
    label: str
    description: str
    build_command: CommandBuilder
    params: tuple[Param, ...] = ()
    # Only these tools reach the model (None: all of them). Saves context on big servers.
    expose: tuple[str, ...] | None = None
    # Texts that mean failure even when the server says is_error=False.
    error_markers: tuple[str, ...] = ()
    homepage: str = ""

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


# --- commands -----------------------------------------------------------------------------


def fetch_command() -> list[str]:
    """The fetch server, run by the Python that runs Loki (mcp-server-fetch is our dependency).

    Through loki_desktop/cli/fetch_server.py, which keeps readabilipy on its pure-Python path
    (its Node path runs `npm install` inside site-packages at the first call). Inside a
    PyInstaller bundle sys.executable is the app itself, which runs that module through its
    hidden sub-command.
    """
    if getattr(sys, "frozen", False):
        return [sys.executable, "mcp-fetch-server"]
    return [sys.executable, "-m", "loki_desktop.cli.fetch_server"]


ALLOW_LOCAL = "ALLOW_LOCAL"


def fetch_catalogue_command(params: Mapping[str, str], context: LaunchContext) -> list[str]:
    command = fetch_command()
    if params.get(ALLOW_LOCAL) == "1":
        # loopback and private addresses: a page being built on localhost (the preview)
        command.append("--allow-private-ips")
    return command


# Executable names of Chromium-family browsers on PATH (Linux mostly, also macOS/Windows).
CHROMIUM_NAMES = (
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
    "microsoft-edge",
    "microsoft-edge-stable",
    "msedge",
    "brave-browser",
    "chrome",
)
MACOS_BROWSERS = (
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
    "/Applications/Chromium.app/Contents/MacOS/Chromium",
    "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
    "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser",
)
WINDOWS_BROWSERS = (
    ("PROGRAMFILES", r"Google\Chrome\Application\chrome.exe"),
    ("PROGRAMFILES(X86)", r"Google\Chrome\Application\chrome.exe"),
    ("LOCALAPPDATA", r"Google\Chrome\Application\chrome.exe"),
    ("PROGRAMFILES(X86)", r"Microsoft\Edge\Application\msedge.exe"),
    ("PROGRAMFILES", r"Microsoft\Edge\Application\msedge.exe"),
    ("LOCALAPPDATA", r"Chromium\Application\chrome.exe"),
)


def find_chromium() -> str | None:
    """A Chromium-family browser of this machine, or None."""
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    candidates: list[Path] = []
    if sys.platform == "darwin":
        candidates = [Path(p) for p in MACOS_BROWSERS]
        candidates += [Path.home() / p.lstrip("/") for p in MACOS_BROWSERS]
    elif sys.platform == "win32":
        candidates = [
            Path(os.environ[var]) / rel for var, rel in WINDOWS_BROWSERS if os.environ.get(var)
        ]
    return next((str(path) for path in candidates if path.is_file()), None)


# The tested version (docs/mcp.md); @latest asks the registry at every start
# (~142 s to give up offline). tests/browser/package.json installs the same version.
PLAYWRIGHT_MCP_VERSION = "0.0.83"
PLAYWRIGHT_MCP = f"@playwright/mcp@{PLAYWRIGHT_MCP_VERSION}"
# Playwright evicts its oldest output files (snapshots, logs, screenshots) past this size.
PLAYWRIGHT_OUTPUT_MAX_BYTES = 50_000_000


def playwright_output_dir(context: LaunchContext) -> Path:
    """Where Playwright writes its automatically named files: Loki's data folder, not the
    workspace (the checks and the preview would see them) nor Loki's working directory."""
    base = context.data_home or Path(tempfile.gettempdir()) / "loki-desktop"
    return base / "playwright-output"


def playwright_command(params: Mapping[str, str], context: LaunchContext) -> list[str]:
    browser = params.get("BROWSER_PATH", "").strip()
    if browser:
        if not Path(browser).is_file():
            raise McpConfigError(
                _("Navigateur introuvable : « {path} » (paramètre BROWSER_PATH).").format(
                    path=browser
                )
            )
    else:
        browser = find_chromium() or ""
    if not browser:
        raise McpConfigError(
            _(
                "Aucun navigateur de la famille Chromium (Chromium, Chrome, Edge) n'a été trouvé : "
                "indiquez son chemin dans le paramètre BROWSER_PATH."
            )
        )
    # --prefer-offline: an exact version never changes, so npx may trust its cache without
    # asking the registry (offline, plain npx spends ~75 s on retries before using it)
    command = ["npx", "--prefer-offline", "-y", PLAYWRIGHT_MCP, "--headless"]
    command += ["--browser", "chromium", "--executable-path", browser, "--isolated"]
    command += ["--output-dir", str(playwright_output_dir(context))]
    command += ["--output-max-size", str(PLAYWRIGHT_OUTPUT_MAX_BYTES)]
    if sys.platform.startswith("linux"):
        # Chromium refuses to start as root with its sandbox on; Loki's agent runs it headless
        # in an isolated profile.
        command.append("--no-sandbox")
    return command


def _fixed(*command: str) -> CommandBuilder:
    return lambda _params, _context: list(command)


# --- the catalogue ----------------------------------------------------------------------

# Node network failures some servers (Context7) return as ordinary text.
NETWORK_ERROR_MARKERS = ("fetch failed", "ECONNREFUSED", "ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN")

# descriptions and parameter labels are marked (N_), translated where they are shown
CATALOGUE: dict[str, CatalogueEntry] = {
    entry.id: entry
    for entry in (
        CatalogueEntry(
            id="playwright",
            label="Playwright",
            description=N_(
                "Pilote un vrai navigateur (Chromium, sans fenêtre) : ouvrir une page, cliquer, "
                "saisir, lire la page et sa console, faire une capture. Pour tester une page web "
                "que l'agent a écrite. Demande Node.js (npx)."
            ),
            build_command=playwright_command,
            params=(
                Param(
                    "BROWSER_PATH",
                    N_("Chemin du navigateur"),
                    N_(
                        "Chromium, Chrome ou Edge. Laissez vide pour utiliser celui qui est "
                        "trouvé sur cette machine."
                    ),
                    target="arg",
                ),
            ),
            expose=(
                "browser_navigate",
                "browser_click",
                "browser_type",
                "browser_snapshot",
                "browser_console_messages",
                "browser_take_screenshot",
            ),
            homepage="https://github.com/microsoft/playwright-mcp",
        ),
        CatalogueEntry(
            id="context7",
            label="Context7",
            description=N_(
                "Documentation à jour des bibliothèques et frameworks (versions récentes, "
                "exemples de code), interrogée en ligne. Demande Node.js (npx) et Internet."
            ),
            build_command=_fixed("npx", "-y", "@upstash/context7-mcp"),
            params=(
                Param(
                    "CONTEXT7_API_KEY",
                    N_("Clé d'API"),
                    N_("Facultative : relève les limites d'usage. Gardée dans le trousseau."),
                ),
            ),
            error_markers=(
                "Failed to retrieve library documentation data",
                "Error searching libraries",
                "Error fetching library documentation",
            ),
            homepage="https://github.com/upstash/context7",
        ),
        CatalogueEntry(
            id="fetch",
            label="Fetch",
            description=N_(
                "Lit une page web et la rend en Markdown pour le modèle. Respecte robots.txt "
                "et refuse les adresses du réseau local, sauf si vous les autorisez. Fourni "
                "avec Loki."
            ),
            build_command=fetch_catalogue_command,
            params=(
                Param(
                    ALLOW_LOCAL,
                    N_("Autoriser les adresses locales"),
                    N_(
                        "Laisse lire les pages de cette machine et du réseau local (localhost, "
                        "192.168.…), par exemple une page en cours de création. Désactivé par "
                        "défaut : une page lue sur Internet ne peut alors pas diriger le "
                        "modèle vers vos appareils."
                    ),
                    target="flag",
                ),
            ),
            homepage="https://github.com/modelcontextprotocol/servers/tree/main/src/fetch",
        ),
        CatalogueEntry(
            id="searxng",
            label="SearXNG",
            description=N_(
                "Recherche sur le Web par votre instance SearXNG (métamoteur libre), puis "
                "lecture des pages trouvées. Demande Node.js (npx)."
            ),
            build_command=_fixed("npx", "-y", "mcp-searxng"),
            params=(
                Param(
                    "SEARXNG_URL",
                    N_("Adresse de SearXNG"),
                    N_("Par exemple http://127.0.0.1:8888"),
                    required=True,
                ),
                Param(
                    "AUTH_USERNAME",
                    N_("Utilisateur"),
                    N_("Facultatif : si l'instance demande une authentification."),
                ),
                Param(
                    "AUTH_PASSWORD",
                    N_("Mot de passe"),
                    N_("Facultatif. Gardé dans le trousseau."),
                ),
            ),
            homepage="https://github.com/ihor-sokoliuk/mcp-searxng",
        ),
    )
}

CATALOGUE_IDS = frozenset(CATALOGUE)
