"""Puts Loki in the user's application menu (freedesktop): desktop entry, icons, metainfo.

The files ship as package data (the top-level resources/ folder, installed as
loki_desktop.resources), so a wheel or a bundle installs them without the source tree. They
go under the user's data folder ($XDG_DATA_HOME, else ~/.local/share), with Exec pointing at
the very installation that runs this code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import platformdirs

from loki_desktop.core.files import atomic_write
from loki_desktop.core.i18n import _

# The desktop entry and the icon are named like the command, and like the window's
# QGuiApplication.desktopFileName: that is how a Wayland compositor matches the window to its
# entry and icon. AppStream wants a reverse-DNS component id of its own.
DESKTOP_ID = "loki-desktop"
ICON_NAME = DESKTOP_ID
APP_ID = "org.lokidesktop.LokiDesktop"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
# A real folder: the package is installed unzipped (wheel, editable install and bundle alike).
RESOURCES_DIR = Path(str(resources.files("loki_desktop.resources")))
ENTRY_NAME = f"{DESKTOP_ID}.desktop"
METAINFO_NAME = f"{APP_ID}.metainfo.xml"

# Characters that force an Exec argument into double quotes (desktop entry spec, "Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
# Inside double quotes these four are escaped with a backslash.
_QUOTED_ESCAPES = {'"': '\\"', "`": "\\`", "$": "\\$", "\\": "\\\\"}


def png_icon_relpath(size: int) -> Path:
    """Where the PNG of one size lives, relative to the resources folder and to $XDG_DATA_HOME."""
    return Path("icons", "hicolor", f"{size}x{size}", "apps", f"{ICON_NAME}.png")


def svg_icon_relpath() -> Path:
    return Path("icons", "hicolor", "scalable", "apps", f"{ICON_NAME}.svg")


def user_data_dir() -> Path:
    """$XDG_DATA_HOME, else ~/.local/share: where per-user menus and icons are read from."""
    return Path(platformdirs.user_data_dir())


def launch_command() -> list[str]:
    """The command that starts this very installation of Loki, with absolute paths."""
    if getattr(sys, "frozen", False):
        # In a PyInstaller bundle sys.executable is the app itself.
        return [str(Path(sys.executable).absolute())]
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.stem == "loki-desktop" and script.is_file():
        # Not resolved: a pipx symlink in ~/.local/bin survives upgrades of the venv behind it.
        return [str(script.absolute())]
    beside = Path(sys.executable).with_name(
        "loki-desktop.exe" if sys.platform == "win32" else "loki-desktop"
    )
    if beside.is_file():
        return [str(beside.absolute())]
    return [str(Path(sys.executable).absolute()), "-m", "loki_desktop"]


def quote_exec_arg(arg: str) -> str:
    """One Exec argument, quoted per the desktop entry spec when it holds a reserved character."""
    # A literal % is written %% whether quoted or not (field codes start with %).
    arg = arg.replace("%", "%%")
    if arg and not (_RESERVED & set(arg)):
        return arg
    return '"' + "".join(_QUOTED_ESCAPES.get(ch, ch) for ch in arg) + '"'


def exec_value(argv: Sequence[str]) -> str:
    """The value of an Exec key: quoted arguments, then the string escapes of the format."""
    line = " ".join(quote_exec_arg(arg) for arg in argv)
    # The "string" type's own escapes apply on top of the quoting (a backslash becomes two).
    return line.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def render_entry(template: str, argv: Sequence[str]) -> str:
    """The shipped desktop entry with Exec and TryExec pointing at `argv`."""
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + exec_value(argv)
        elif line.startswith("TryExec="):
            # TryExec is a plain path: the menu hides the entry once that file is gone.
            line = "TryExec=" + argv[0].replace("\\", "\\\\")
        lines.append(line)
    return "\n".join(lines) + "\n"


def installed_files(data_dir: Path) -> list[Path]:
    """Every file `install` writes under `data_dir` (and `uninstall` removes)."""
    return [
        data_dir / "applications" / ENTRY_NAME,
        data_dir / "metainfo" / METAINFO_NAME,
        data_dir / svg_icon_relpath(),
        *(data_dir / png_icon_relpath(size) for size in ICON_SIZES),
    ]


def install(data_dir: Path | None = None, argv: Sequence[str] | None = None) -> list[Path]:
    """Write the desktop entry, the metainfo and the icons; returns the files written."""
    data_dir = data_dir or user_data_dir()
    argv = list(argv) if argv is not None else launch_command()
    template = (RESOURCES_DIR / "desktop" / ENTRY_NAME).read_text(encoding="utf-8")
    sources: list[tuple[Path, bytes]] = [
        (data_dir / "applications" / ENTRY_NAME, render_entry(template, argv).encode("utf-8")),
        (
            data_dir / "metainfo" / METAINFO_NAME,
            (RESOURCES_DIR / "desktop" / METAINFO_NAME).read_bytes(),
        ),
        (data_dir / svg_icon_relpath(), (RESOURCES_DIR / "loki.svg").read_bytes()),
    ]
    sources += [
        (data_dir / png_icon_relpath(size), (RESOURCES_DIR / png_icon_relpath(size)).read_bytes())
        for size in ICON_SIZES
    ]
    for target, data in sources:
        atomic_write(target, data)
    _refresh_caches(data_dir)
    return [target for target, _data in sources]


def uninstall(data_dir: Path | None = None) -> list[Path]:
    """Remove what `install` wrote; returns the files that were there."""
    data_dir = data_dir or user_data_dir()
    removed = []
    for path in installed_files(data_dir):
        if path.is_file():
            path.unlink()
            removed.append(path)
    _refresh_caches(data_dir)
    return removed


def _refresh_caches(data_dir: Path) -> None:
    """Tell menus and icon themes about the change, with the tools this system has."""
    applications = data_dir / "applications"
    tool = shutil.which("update-desktop-database")
    if tool and applications.is_dir():
        subprocess.run([tool, "-q", str(applications)], check=False, capture_output=True)
    hicolor = data_dir / "icons" / "hicolor"
    if not hicolor.is_dir():
        return
    # GTK trusts an icon cache only while it is newer than the theme folder: touching the
    # folder makes a stale cache ignored. Rebuild a cache only where one is kept already,
    # so we never leave one behind that other applications' icons would make stale.
    os.utime(hicolor)
    tool = shutil.which("gtk-update-icon-cache")
    if tool and (hicolor / "icon-theme.cache").exists():
        subprocess.run([tool, "-q", "-t", "-f", str(hicolor)], check=False, capture_output=True)


def main(*, install_entry: bool) -> int:
    """`loki-desktop --install-desktop-entry` / `--uninstall-desktop-entry`."""
    if sys.platform in ("win32", "darwin"):
        print(
            _(
                "L'entrée de menu freedesktop ne concerne que Linux et les BSD. Sous Windows, "
                "créez un raccourci du menu Démarrer vers loki-desktop.exe ; sous macOS, "
                "utilisez l'application Loki Desktop.app (voir le README)."
            ),
            file=sys.stderr,
        )
        return 1
    data_dir = user_data_dir()
    command = launch_command()
    try:
        changed = install(data_dir, command) if install_entry else uninstall(data_dir)
    except OSError as error:
        print(
            _("Impossible d'écrire dans {folder} : {error}").format(folder=data_dir, error=error),
            file=sys.stderr,
        )
        return 1
    if install_entry:
        print(_("Entrée de menu installée : {path}").format(path=changed[0]))
        print(_("Icônes installées sous : {path}").format(path=data_dir / "icons" / "hicolor"))
        print(_("Commande lancée : {command}").format(command=exec_value(command)))
        print(
            _(
                "Loki Desktop apparaît dans le menu des applications (si votre bureau ne le "
                "montre pas encore, fermez la session puis rouvrez-la)."
            )
        )
    elif changed:
        print(_("Entrée de menu et icônes retirées ({count} fichiers).").format(count=len(changed)))
    else:
        print(
            _("Aucune entrée de menu de Loki Desktop à retirer dans {folder}.").format(
                folder=data_dir
            )
        )
    return 0
