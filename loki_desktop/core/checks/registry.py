"""The checker of every file kind, chosen by extension (for the agent, the CLI and the watcher)."""

from __future__ import annotations

import asyncio
import logging
import shutil
from pathlib import Path
from typing import Literal

from loki_desktop.core.checks.css_check import check_css
from loki_desktop.core.checks.html_check import check_html
from loki_desktop.core.checks.js_check import check_javascript
from loki_desktop.core.checks.json_check import check_json
from loki_desktop.core.checks.model import CheckResult
from loki_desktop.core.checks.python_check import check_python, find_ruff
from loki_desktop.core.checks.shell_check import check_shell, find_shell_tools
from loki_desktop.core.checks.source import Reader, read_source
from loki_desktop.core.checks.toml_check import check_toml
from loki_desktop.core.checks.typescript_check import check_typescript
from loki_desktop.core.checks.yaml_check import check_yaml
from loki_desktop.core.i18n import _

log = logging.getLogger(__name__)

Kind = Literal["python", "javascript", "typescript", "html", "css", "json", "toml", "yaml", "shell"]

KINDS: dict[str, Kind] = {
    ".py": "python",
    ".pyw": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescript",
    ".jsx": "typescript",  # JSX: the same tree-sitter check, JavaScript grammar
    ".css": "css",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "shell",
    ".bash": "shell",
    ".ksh": "shell",
    ".zsh": "shell",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
    ".jsonc": "json",
    ".toml": "toml",
}
# More than this is noise for the model and the user: the first ones are what to fix.
MAX_PROBLEMS = 50


class Checkers:
    """Static checks of files. Nothing is ever run, and nothing is written anywhere.

    The programs are looked up once: `node` and the shells on PATH, ruff and shellcheck
    from their wheels. TypeScript, CSS and YAML are parsed in-process (tree-sitter,
    tinycss2, PyYAML), imported on first use.
    """

    def __init__(self, read: Reader | None = None) -> None:
        self._read = read  # None: by path (the CLI, the watcher)
        self.node = shutil.which("node")
        self.ruff = find_ruff()
        self.shell_tools = find_shell_tools()

    @staticmethod
    def kind(path: Path) -> Kind | None:
        return KINDS.get(path.suffix.lower())

    def can_check(self, path: Path) -> bool:
        return self.kind(path) is not None

    async def check(self, path: Path, root: Path | None = None) -> CheckResult:
        """Check one file; `root` bounds where the HTML check looks for linked files."""
        kind = self.kind(path)
        if kind is None:
            return CheckResult(
                skipped=_("aucune vérification n'existe pour les fichiers {suffix}").format(
                    suffix=path.suffix or _("sans extension")
                )
            )
        source = await asyncio.to_thread(read_source, path, self._read)
        if isinstance(source, CheckResult):
            return source
        try:
            match kind:
                case "python":
                    result = await check_python(source, self.ruff)
                case "javascript":
                    result = await check_javascript(source, self.node)
                case "typescript":
                    result = await check_typescript(source)
                case "html":
                    result = await check_html(source, root, self.node)
                case "json":
                    result = await check_json(source)
                case "toml":
                    result = await check_toml(source)
                case "css":
                    result = await check_css(source)
                case "yaml":
                    result = await check_yaml(source)
                case "shell":
                    result = await check_shell(source, self.shell_tools)
        except Exception as exc:  # a checker bug must not end a turn or stop the watcher
            log.exception("the %s check of %s failed", kind, path)
            return CheckResult(
                skipped=_("la vérification {kind} a échoué : {error}").format(
                    kind=kind, error=f"{type(exc).__name__}: {exc}"
                )
            )
        return _capped(result)


def _capped(result: CheckResult) -> CheckResult:
    if len(result.problems) <= MAX_PROBLEMS:
        return result
    note = _("seuls les {shown} premiers des {n} problèmes sont listés").format(
        shown=MAX_PROBLEMS, n=len(result.problems)
    )
    skipped = f"{result.skipped}; {note}" if result.skipped else note
    return CheckResult(result.problems[:MAX_PROBLEMS], skipped)
