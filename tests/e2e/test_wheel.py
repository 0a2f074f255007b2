"""The built wheel is complete: installed in a fresh venv, Loki runs without the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from loki_desktop import __version__
from loki_desktop.desktop_integration import ENTRY_NAME, ICON_SIZES, png_icon_relpath
from tests.conftest import REPO

# What a wheel is built from: the source tree without venvs, caches and earlier builds.
NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "tests",
    "bench",
)


# Imports every module of the installed package; prints those that fail.
IMPORT_ALL = """
import importlib, pkgutil, loki_desktop
for module in pkgutil.walk_packages(loki_desktop.__path__, "loki_desktop."):
    try:
        importlib.import_module(module.name)
    except Exception as error:
        print(module.name, repr(error))
"""


def package_data_files(source: Path) -> set[str]:
    """The files the installed app reads from the top-level skills/ and resources/ folders,
    as wheel names (mapped into the package: loki_desktop/skills, loki_desktop/resources),
    and the evaluation suite's task files (loki_desktop/core/evaluation/basic)."""
    files = {*source.glob("skills/**/*"), *source.glob("resources/**/*")}
    mapped = {
        f"loki_desktop/{path.relative_to(source).as_posix()}"
        for path in files
        if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith(".")
    }
    tasks = source.glob("loki_desktop/core/evaluation/basic/*.toml")
    return mapped | {path.relative_to(source).as_posix() for path in tasks}


def source_packages(source: Path) -> set[str]:
    """Every package of loki_desktop/ in the source tree, as a wheel folder name."""
    return {
        init.parent.relative_to(source).as_posix()
        for init in source.glob("loki_desktop/**/__init__.py")
        if "__pycache__" not in init.parts
    }


def user_env(tmp_path: Path, venv: Path) -> dict[str, str]:
    """A user's shell with the venv on PATH: nothing points back at the repository."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP"}
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["LOKI_HOME"] = str(tmp_path / "loki-home")
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg-data")
    env["PYTHONUTF8"] = "1"
    return env


@pytest.mark.slow
@pytest.mark.timeout(900)  # a build, a venv and an install: minutes on a loaded machine
def test_wheel_installed_in_a_fresh_venv_runs_and_picks_a_skill(tmp_path: Path) -> None:
    # Build from a copy, so the shared working tree gets no build/ or egg-info folders.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    dist = tmp_path / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (wheel,) = dist.glob("loki_desktop-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    expected = package_data_files(source)
    assert "loki_desktop/skills/debogage-systematique.md" in expected
    assert "loki_desktop/skills/examples/labelled.tsv" in expected
    assert "loki_desktop/core/evaluation/basic/fix.toml" in expected
    assert f"loki_desktop/resources/desktop/{ENTRY_NAME}" in expected
    assert not expected - names, f"package data missing from the wheel: {expected - names}"
    missing = {f"{package}/__init__.py" for package in source_packages(source)} - names
    assert not missing, f"packages missing from the wheel: {missing}"
    for size in ICON_SIZES:
        assert f"loki_desktop/resources/{png_icon_relpath(size).as_posix()}" in names

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    # --no-compile: pip would compile every module of every dependency (a minute on a loaded
    # machine); what this test proves is what the wheel holds and declares
    install = ["install", "--quiet", "--disable-pip-version-check", "--no-compile", str(wheel)]
    installed = subprocess.run(
        [python, "-m", "pip", *install],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = user_env(tmp_path, venv)

    def user_runs(*argv: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, capture_output=True, text=True, cwd=elsewhere, env=env, timeout=60, check=False
        )

    def loki(*args: str) -> subprocess.CompletedProcess[str]:
        return user_runs(venv / "bin" / "loki-desktop", *args)

    located = user_runs(python, "-c", "import loki_desktop; print(loki_desktop.__file__)")
    assert Path(located.stdout.strip()).is_relative_to(venv)

    # Every module imports with only the declared dependencies (an undeclared one fails here).
    imported = user_runs(python, "-c", IMPORT_ALL)
    assert imported.returncode == 0, imported.stderr[-3000:]
    assert imported.stdout.strip() == "", f"modules that do not import: {imported.stdout}"

    version = loki("--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"loki-desktop {__version__}"

    picked = loki("skills", "mon script plante avec une TypeError")
    assert picked.returncode == 0, picked.stderr
    assert picked.stdout.split()[0] == "debogage-systematique"

    # The desktop entry, metainfo and icons come from the installed package data.
    entry = loki("--install-desktop-entry")
    assert entry.returncode == 0, entry.stderr
    desktop_file = tmp_path / "xdg-data" / "applications" / ENTRY_NAME
    assert f"Exec={venv / 'bin' / 'loki-desktop'}\n" in desktop_file.read_text(encoding="utf-8")
    assert (tmp_path / "xdg-data" / "icons" / "hicolor" / "512x512" / "apps").is_dir()
