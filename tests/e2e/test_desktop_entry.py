"""Desktop integration: entry and metainfo validate, icons match the SVG, install works."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from loki_desktop import __version__
from loki_desktop.desktop_integration import (
    APP_ID,
    ENTRY_NAME,
    ICON_NAME,
    ICON_SIZES,
    METAINFO_NAME,
    RESOURCES_DIR,
    exec_value,
    installed_files,
    png_icon_relpath,
    render_entry,
)
from tests.conftest import REPO

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ENTRY = RESOURCES_DIR / "desktop" / ENTRY_NAME
METAINFO = RESOURCES_DIR / "desktop" / METAINFO_NAME
# The venv's console script, as pip wrote it: what a user runs.
LOKI = Path(sys.executable).with_name("loki-desktop")


def needs(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (CI installs it: see .ci/run)")
    return path


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk comes first
    return width, height


def load_render_icons() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "render_icons", REPO / "packaging" / "render_icons.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def desktop_keys(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


# --- the shipped files ----------------------------------------------------------------------


def test_shipped_desktop_entry_passes_desktop_file_validate() -> None:
    validate = needs("desktop-file-validate")
    result = subprocess.run([validate, str(ENTRY)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout + result.stderr == ""
    keys = desktop_keys(ENTRY.read_text(encoding="utf-8"))
    assert keys["Icon"] == ICON_NAME
    assert keys["Type"] == "Application"


def test_metainfo_passes_appstreamcli_and_names_the_entry() -> None:
    appstreamcli = needs("appstreamcli")
    result = subprocess.run(
        [appstreamcli, "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable[@type='desktop-id']") == ENTRY_NAME
    assert root.findtext("icon[@type='stock']") == ICON_NAME
    release = root.find("releases/release")
    assert release is not None
    assert release.get("version") == __version__, "add a <release> for the new version"


def test_icon_pngs_are_the_current_rendering_of_the_svg(qapp: object) -> None:
    from PySide6.QtGui import QImage

    render_icons = load_render_icons()
    for size in ICON_SIZES:
        path = RESOURCES_DIR / png_icon_relpath(size)
        committed = path.read_bytes()
        assert png_size(committed) == (size, size), path
        rgba = QImage.Format.Format_RGBA8888
        fresh = QImage.fromData(render_icons.render_png(RESOURCES_DIR / "loki.svg", size))
        # Keep each converted image alive while its pixels are copied out.
        fresh_rgba = fresh.convertToFormat(rgba)
        committed_rgba = QImage.fromData(committed).convertToFormat(rgba)
        fresh_pixels = bytes(fresh_rgba.constBits())
        committed_pixels = bytes(committed_rgba.constBits())
        # Antialiasing may differ by a unit between Qt versions; a changed SVG differs a lot.
        difference = sum(abs(a - b) for a, b in zip(fresh_pixels, committed_pixels, strict=True))
        mean = difference / (size * size * 4)
        assert mean < 2, f"{path.name} at {size}px is stale: run packaging/render_icons.py"


def test_bundle_icons_hold_the_expected_sizes() -> None:
    ico = (REPO / "packaging" / "icons" / "loki-desktop.ico").read_bytes()
    _reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert kind == 1
    sizes = []
    for index in range(count):
        side, _h, _c, _r, _planes, _bits, length, offset = struct.unpack(
            "<BBBBHHII", ico[6 + 16 * index : 22 + 16 * index]
        )
        assert png_size(ico[offset : offset + length])[0] == (side or 256)
        sizes.append(side or 256)
    assert sizes == [16, 24, 32, 48, 64, 128, 256]

    icns = (REPO / "packaging" / "icons" / "loki-desktop.icns").read_bytes()
    assert icns[:4] == b"icns"
    assert struct.unpack(">I", icns[4:8])[0] == len(icns)
    position, found = 8, {}
    while position < len(icns):
        kind_name, length = (
            icns[position : position + 4],
            struct.unpack(">I", icns[position + 4 : position + 8])[0],
        )
        found[kind_name] = png_size(icns[position + 8 : position + length])[0]
        position += length
    assert found[b"ic09"] == 512
    assert found[b"ic10"] == 1024


# --- Exec quoting -------------------------------------------------------------------------


def test_exec_quoting_follows_the_spec() -> None:
    assert exec_value(["/opt/loki/loki-desktop"]) == "/opt/loki/loki-desktop"
    assert exec_value(["/home/a b/loki-desktop"]) == '"/home/a b/loki-desktop"'
    assert exec_value(["/x/$HOME"]) == '"/x/\\\\$HOME"'
    assert exec_value(["/x/50%"]) == "/x/50%%"
    assert exec_value(["C:\\x"]) == '"C:\\\\\\\\x"'


def test_a_real_launcher_runs_the_quoted_path(tmp_path: Path) -> None:
    """GLib's launcher (gio) parses our Exec line back into the same argv."""
    gio = needs("gio")
    # Every reserved character GLib can launch from ('%' it refuses before expanding %%).
    folder = tmp_path / "dossier à $HOME \"q\" `b` \\s 'a' (x);|&"
    folder.mkdir()
    program = folder / "loki-desktop"
    program.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "open(os.environ['ARGV_OUT'], 'w').write(json.dumps(sys.argv))\n",
        encoding="utf-8",
    )
    program.chmod(0o755)
    entry = tmp_path / "t.desktop"
    entry.write_text(render_entry(ENTRY.read_text(encoding="utf-8"), [str(program), "a b"]))
    out = tmp_path / "argv.json"
    env = dict(os.environ, ARGV_OUT=str(out))
    result = subprocess.run(
        [gio, "launch", str(entry)], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    deadline = time.monotonic() + 10
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert json.loads(out.read_text()) == [str(program), "a b"]


# --- install / uninstall --------------------------------------------------------------------


def run_loki(*args: str, data_home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, XDG_DATA_HOME=str(data_home))
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [LOKI, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_install_writes_entry_and_icons_under_the_user_data_folder(tmp_path: Path) -> None:
    data_home = tmp_path / "my data" / "share"
    installed = run_loki("--install-desktop-entry", data_home=data_home)
    assert installed.returncode == 0, installed.stderr
    for path in installed_files(data_home):
        assert path.is_file(), path
    for size in ICON_SIZES:
        copied = (data_home / png_icon_relpath(size)).read_bytes()
        assert copied == (RESOURCES_DIR / png_icon_relpath(size)).read_bytes()
    entry = data_home / "applications" / ENTRY_NAME
    keys = desktop_keys(entry.read_text(encoding="utf-8"))
    assert keys["Exec"] == str(LOKI)
    assert keys["TryExec"] == str(LOKI)
    assert keys["Icon"] == ICON_NAME
    validate = needs("desktop-file-validate")
    result = subprocess.run([validate, str(entry)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr

    removed = run_loki("--uninstall-desktop-entry", data_home=data_home)
    assert removed.returncode == 0, removed.stderr
    assert not [path for path in installed_files(data_home) if path.exists()]
    again = run_loki("--uninstall-desktop-entry", data_home=data_home)
    assert again.returncode == 0
    assert "Aucune entrée" in again.stdout


def test_install_into_an_unwritable_place_says_so(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    result = run_loki("--install-desktop-entry", data_home=blocker)
    assert result.returncode == 1
    assert "Impossible d'écrire" in result.stderr
    assert "Traceback" not in result.stderr
