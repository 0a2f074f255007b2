"""Which Python a file is written for: its project's requires-python, else .python-version."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from loki_desktop.core.i18n import _

# The newest grammar ruff knows in every version we allow (ruff >= 0.12 knows py314).
NEWEST = (3, 14)
_MINORS = range(0, NEWEST[1] + 1)
_VERSION_FILE = re.compile(r"^\s*(?:cpython-|python)?3\.(\d+)")
_MAX_BYTES = 200_000  # a pyproject.toml is a few kB; a huge one is not read


@dataclass(frozen=True, slots=True)
class PythonTarget:
    """The version whose grammar judges a file, and where it was declared (for messages)."""

    version: tuple[int, int]
    origin: str | None = None  # None: nothing declared, the newest grammar is used

    @property
    def ruff_name(self) -> str:
        return f"py{self.version[0]}{self.version[1]}"

    @property
    def shown(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"


def python_target(path: Path) -> PythonTarget:
    """The lowest Python the nearest project allows: walks up from the file's folder to the
    first folder with a pyproject.toml declaring requires-python or a .python-version."""
    folder = path.parent.resolve()
    for candidate in (folder, *folder.parents):
        target = _declared_in(candidate)
        if target is not None:
            return target
    return PythonTarget(NEWEST)


def _declared_in(folder: Path) -> PythonTarget | None:
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        spec = _requires_python(pyproject)
        if spec is not None:
            version = lowest_allowed(spec)
            if version is not None:
                where = folder.name or str(folder)
                return PythonTarget(
                    version,
                    _("requires-python = « {spec} » dans {name}").format(
                        spec=spec, name=f"{where}/pyproject.toml"
                    ),
                )
    pinned = folder / ".python-version"
    if pinned.is_file():
        version = _pinned_version(pinned)
        if version is not None:
            where = folder.name or str(folder)
            return PythonTarget(version, f"{where}/.python-version")
    return None


def _requires_python(pyproject: Path) -> str | None:
    try:
        with pyproject.open("rb") as handle:
            data = tomllib.loads(handle.read(_MAX_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None  # a broken pyproject.toml is the TOML check's business
    project = data.get("project")
    spec = project.get("requires-python") if isinstance(project, dict) else None
    return spec.strip() if isinstance(spec, str) and spec.strip() else None


@functools.lru_cache(maxsize=64)
def lowest_allowed(spec: str) -> tuple[int, int] | None:
    """The first 3.x release the specifier allows (">=3.11" -> 3.11, "~=3.10.2" -> 3.10)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # ~4 ms: on first use

    try:
        allowed = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    for minor in _MINORS:
        # a minor version is allowed when any of its releases is (3.10.2 for "~=3.10.2")
        if any(allowed.contains(f"3.{minor}.{patch}", prereleases=True) for patch in range(30)):
            return (3, minor)
    return None


def _pinned_version(path: Path) -> tuple[int, int] | None:
    try:
        with path.open("rb") as handle:
            first = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    for line in first.splitlines():
        match = _VERSION_FILE.match(line)
        if match:
            return (3, min(int(match[1]), NEWEST[1]))
    return None
