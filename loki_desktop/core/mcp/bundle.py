"""MCP bundles (`.mcpb`, manifest spec 0.3): read one, check it, unpack it, and turn its
`mcp_config` into the command line, environment and secrets of a stdio server.

A bundle is a zip holding `manifest.json` and the server's files. The manifest names the
server's type (node, python, binary, uv), its entry point, how to run it (`mcp_config`:
command, args, env, with `${__dirname}`, `${HOME}`… and `${user_config.KEY}` variables) and
the values it asks of the person (`user_config`; `sensitive` ones go to the keyring only).
Nothing here runs the server; a bundle that is not a zip, has no or a bad manifest, or holds a
path that escapes its folder is refused with one sentence (McpConfigError).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from loki_desktop.core.i18n import _
from loki_desktop.core.mcp.config import McpConfigError

SERVER_TYPES = ("node", "python", "binary", "uv")
OPTION_TYPES = ("string", "number", "boolean", "directory", "file")
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
MAX_MEMBERS = 20_000
MAX_MANIFEST_BYTES = 1024 * 1024
MAX_RATIO = 200  # a member that inflates more than this is a zip bomb, not a server
_VARIABLE = re.compile(r"\$\{([A-Za-z_][\w.]*|/)\}")


@dataclass(frozen=True, slots=True)
class UserOption:
    """One value the bundle asks of the person (`user_config.KEY`)."""

    key: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    sensitive: bool = False
    multiple: bool = False
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True, slots=True)
class Bundle:
    """What a bundle's manifest says, checked."""

    name: str
    display_name: str
    version: str
    description: str
    author: str
    server_type: str
    entry_point: str
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    tools: tuple[str, ...]
    options: tuple[UserOption, ...]


@dataclass(frozen=True, slots=True)
class ServerLine:
    """The bundle's server as Loki runs it: `${NAME}` in `command` are keyring secrets."""

    command: tuple[str, ...]
    env: Mapping[str, str]
    secrets: Mapping[str, str]


def read_bundle(path: Path) -> Bundle:
    """The checked manifest of the bundle at `path` (nothing is unpacked)."""
    with _open_zip(path) as archive:
        _check_members(archive)
        try:
            raw = archive.read("manifest.json")
        except KeyError:
            raise McpConfigError(_("Ce paquet .mcpb n'a pas de manifest.json.")) from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise McpConfigError(_("Le manifest.json de ce paquet est anormalement grand."))
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise McpConfigError(
            _("Le manifest.json de ce paquet est illisible ({error}).").format(error=exc)
        ) from None
    return parse_manifest(manifest)


def parse_manifest(manifest: Any) -> Bundle:
    """A manifest object checked against spec 0.3 (raises McpConfigError)."""
    if not isinstance(manifest, dict):
        raise McpConfigError(_("Le manifest.json de ce paquet n'est pas un objet JSON."))
    name = _text(manifest, "name", required=True)
    author = manifest.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("name"), str):
        raise McpConfigError(_("Le manifest.json ne dit pas qui est l'auteur (author.name)."))
    server = manifest.get("server")
    if not isinstance(server, dict):
        raise McpConfigError(_("Le manifest.json ne dit pas comment lancer le serveur (server)."))
    kind = server.get("type")
    if kind not in SERVER_TYPES:
        raise McpConfigError(
            _("Type de serveur inconnu dans le manifest.json : « {type} ».").format(type=kind)
        )
    entry = _text(server, "entry_point", required=True)
    _safe_member(entry)
    command, args, env = _mcp_config(server.get("mcp_config"), kind, entry)
    tools = manifest.get("tools") or []
    if not isinstance(tools, list):
        raise McpConfigError(_("« tools » du manifest.json doit être une liste."))
    return Bundle(
        name=name,
        display_name=_text(manifest, "display_name") or name,
        version=_text(manifest, "version", required=True),
        description=_text(manifest, "description"),
        author=author["name"],
        server_type=kind,
        entry_point=entry,
        command=command,
        args=args,
        env=env,
        tools=tuple(
            t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)
        ),
        options=_options(manifest.get("user_config") or {}),
    )


def unpack(path: Path, destination: Path) -> None:
    """Unpack the bundle into `destination` (which must not exist): all of it, or nothing."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=destination.parent))
    try:
        with _open_zip(path) as archive:
            for member in _check_members(archive):
                target = staging.joinpath(*PurePosixPath(member.filename).parts)
                if member.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as source, target.open("wb") as out:
                    shutil.copyfileobj(source, out)
                if member.external_attr >> 16 & 0o111:
                    target.chmod(0o755)  # an executable stays one (binary servers)
        staging.rename(destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def server_line(bundle: Bundle, folder: Path, values: Mapping[str, Any]) -> ServerLine:
    """The command and environment with every variable replaced. The values of sensitive
    options stay out of both: an argument holds a `${NAME}` placeholder of a keyring secret,
    a variable of the environment that mentions one is a keyring secret itself."""
    chosen = resolve_values(bundle, values)
    sensitive = {option.key for option in bundle.options if option.sensitive}
    secrets: dict[str, str] = {}
    command: list[str] = []
    for arg in (bundle.command, *bundle.args):
        for key in _mentioned(arg) & sensitive:
            if key in chosen:
                secrets[secret_name(key)] = str(chosen[key])
        command += _expand(arg, folder, chosen, hidden=sensitive)
    env: dict[str, str] = {}
    for name, raw in bundle.env.items():
        text = " ".join(_expand(raw, folder, chosen, hidden=frozenset()))
        if _mentioned(raw) & sensitive:
            secrets[name] = text
        else:
            env[name] = text
    if bundle.server_type == "binary" and not os.path.isabs(command[0]):
        command[0] = str(folder / command[0])  # a binary ships in the bundle
    return ServerLine(tuple(command), env, secrets)


def _mentioned(text: str) -> set[str]:
    """The user_config keys a manifest string refers to."""
    return {
        name.removeprefix("user_config.")
        for name in _VARIABLE.findall(text)
        if name.startswith("user_config.")
    }


def resolve_values(bundle: Bundle, given: Mapping[str, Any]) -> dict[str, Any]:
    """The person's values, checked against the options; defaults where none was given."""
    unknown = set(given) - {option.key for option in bundle.options}
    if unknown:
        raise McpConfigError(
            _("Ce paquet ne demande pas : {names}.").format(names=", ".join(sorted(unknown)))
        )
    chosen: dict[str, Any] = {}
    for option in bundle.options:
        if option.key in given:
            chosen[option.key] = _checked(option, given[option.key])
        elif option.default is not None:
            chosen[option.key] = _default(option.default)
        elif option.required:
            raise McpConfigError(
                _("Ce paquet demande « {title} » ({key}).").format(
                    title=option.title, key=option.key
                )
            )
    return chosen


def secret_name(key: str) -> str:
    """The keyring name of a sensitive option's value."""
    return "USER_CONFIG_" + re.sub(r"\W", "_", key).upper()


# --- inside -------------------------------------------------------------------------------


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        info = path.stat()
    except OSError as exc:
        raise McpConfigError(
            _("Paquet illisible : {error}.").format(error=exc.strerror or exc)
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise McpConfigError(_("« {name} » n'est pas un fichier.").format(name=path.name))
    if info.st_size > MAX_ARCHIVE_BYTES:
        raise McpConfigError(_("Ce paquet .mcpb est trop grand (plus de 512 Mo)."))
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise McpConfigError(
            _("« {name} » n'est pas un paquet .mcpb (ce n'est pas une archive zip).").format(
                name=path.name
            )
        ) from None


def _check_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise McpConfigError(_("Ce paquet .mcpb contient trop de fichiers."))
    total = 0
    for member in members:
        _safe_member(member.filename)
        if stat.S_ISLNK(member.external_attr >> 16):
            raise McpConfigError(
                _("Ce paquet contient un lien ({name}) : refusé.").format(name=member.filename)
            )
        total += member.file_size
        ratio = member.file_size / max(member.compress_size, 1)
        if total > MAX_UNPACKED_BYTES or (member.file_size > 1024 * 1024 and ratio > MAX_RATIO):
            raise McpConfigError(_("Ce paquet .mcpb se décompresse en une taille anormale."))
    return members


def _safe_member(name: str) -> None:
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or (path.parts and ":" in path.parts[0]):
        raise McpConfigError(
            _("Ce paquet contient un chemin qui sort de son dossier ({name}) : refusé.").format(
                name=name
            )
        )


def _text(data: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise McpConfigError(_("Le manifest.json n'a pas de « {key} » utilisable.").format(key=key))
    return value


def _mcp_config(config: Any, kind: str, entry: str) -> tuple[str, tuple[str, ...], dict[str, str]]:
    """The command, args and env of `mcp_config`; for `uv` (and a manifest without it) the
    host's own way of running the entry point."""
    if config is None:
        defaults = {
            "node": ("node", ("${__dirname}/" + entry,)),
            "python": ("python3", ("${__dirname}/" + entry,)),
            "binary": ("${__dirname}/" + entry, ()),
            "uv": ("uv", ("run", "--directory", "${__dirname}", entry)),
        }
        command, args = defaults[kind]
        return command, args, {}
    if not isinstance(config, dict) or not isinstance(config.get("command"), str):
        raise McpConfigError(_("« mcp_config » du manifest.json doit donner une commande."))
    args = config.get("args", [])
    env = config.get("env", {})
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise McpConfigError(_("« mcp_config.args » doit être une liste de textes."))
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise McpConfigError(_("« mcp_config.env » doit associer des noms à des textes."))
    overrides = config.get("platform_overrides", {}).get(sys.platform, {})
    if isinstance(overrides, dict):
        config = {**config, **{k: v for k, v in overrides.items() if k in ("command", "args")}}
        env = {**env, **(overrides.get("env") or {})}
    return config["command"], tuple(config.get("args", args)), {str(k): v for k, v in env.items()}


def _tool_names(tools: list[Any]) -> tuple[str, ...]:
    names = (tool.get("name") for tool in tools if isinstance(tool, dict))
    return tuple(name for name in names if isinstance(name, str))


def _options(raw: Any) -> tuple[UserOption, ...]:
    if not isinstance(raw, dict):
        raise McpConfigError(_("« user_config » du manifest.json doit être un objet."))
    options = []
    for key, spec in raw.items():
        if not isinstance(spec, dict) or spec.get("type") not in OPTION_TYPES:
            raise McpConfigError(
                _("Réglage « {key} » du manifest.json : type inconnu.").format(key=key)
            )
        options.append(
            UserOption(
                key=str(key),
                type=spec["type"],
                title=str(spec.get("title") or key),
                description=str(spec.get("description") or ""),
                required=spec.get("required") is True,
                default=spec.get("default"),
                sensitive=spec.get("sensitive") is True,
                multiple=spec.get("multiple") is True,
                minimum=spec.get("min") if isinstance(spec.get("min"), int | float) else None,
                maximum=spec.get("max") if isinstance(spec.get("max"), int | float) else None,
            )
        )
    return tuple(options)


def _checked(option: UserOption, value: Any) -> Any:
    """A value typed by the person (text) as the option's type."""
    if isinstance(value, list) and option.multiple:
        return [_checked(UserOption(option.key, option.type, option.title), v) for v in value]
    text = str(value)
    if option.type == "boolean":
        if text.lower() not in ("true", "false", "1", "0", "oui", "non", "yes", "no"):
            raise McpConfigError(_("« {key} » attend vrai ou faux.").format(key=option.key))
        return text.lower() in ("true", "1", "oui", "yes")
    if option.type == "number":
        try:
            number = float(text)
        except ValueError:
            raise McpConfigError(_("« {key} » attend un nombre.").format(key=option.key)) from None
        low = option.minimum if option.minimum is not None else -float("inf")
        high = option.maximum if option.maximum is not None else float("inf")
        if not low <= number <= high:
            raise McpConfigError(
                _("« {key} » doit être entre {low} et {high}.").format(
                    key=option.key, low=f"{low:g}", high=f"{high:g}"
                )
            )
        return int(number) if number.is_integer() else number
    return text


def _expand(
    text: str, folder: Path, values: Mapping[str, Any], *, hidden: set[str] | frozenset[str]
) -> list[str]:
    """One manifest string with its variables replaced; a whole-argument multiple value
    expands to one argument per value (the spec's array expansion). The `hidden` options
    become `${NAME}` placeholders of keyring secrets."""
    whole = _VARIABLE.fullmatch(text)
    if whole and whole.group(1).startswith("user_config."):
        key = whole.group(1).removeprefix("user_config.")
        if isinstance(values.get(key), list):
            return [str(_plain(v)) for v in values[key]]
    places = _places(folder)

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("user_config."):
            key = name.removeprefix("user_config.")
            if key in hidden:
                return "${" + secret_name(key) + "}"  # filled from the keyring at launch
            found = values.get(key, "")
            return " ".join(map(str, found)) if isinstance(found, list) else str(_plain(found))
        return places.get(name, match.group(0))

    return [_VARIABLE.sub(value, text)]


def _places(folder: Path | None) -> dict[str, str]:
    """The spec's path variables (`${__dirname}` only once the bundle has a folder)."""
    home = Path.home()
    places = {
        "HOME": str(home),
        "DESKTOP": str(home / "Desktop"),
        "DOCUMENTS": str(home / "Documents"),
        "DOWNLOADS": str(home / "Downloads"),
        "pathSeparator": os.sep,
        "/": os.sep,
    }
    if folder is not None:
        places["__dirname"] = str(folder)
    return places


def _default(value: Any) -> Any:
    """A default value with its own variables replaced (`${HOME}/Desktop`)."""
    if isinstance(value, list):
        return [_default(v) for v in value]
    if isinstance(value, str):
        places = _places(None)
        return _VARIABLE.sub(lambda m: places.get(m.group(1), m.group(0)), value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def describe(bundle: Bundle) -> list[str]:
    """What the person is shown before installing: name, author, tools, what it asks for."""
    lines = [
        _("{name} {version}, par {author}").format(
            name=bundle.display_name, version=bundle.version, author=bundle.author
        ),
        bundle.description,
        _("Serveur : {type}, {command}").format(type=bundle.server_type, command=bundle.command),
    ]
    if bundle.tools:
        lines.append(_("Outils annoncés : {names}").format(names=", ".join(bundle.tools)))
    for option in bundle.options:
        marks = [_("obligatoire")] if option.required else []
        if option.sensitive:
            marks.append(_("secret, rangé dans le trousseau"))
        suffix = f" ({', '.join(marks)})" if marks else ""
        lines.append(
            _("Demande « {title} » [{key}]{suffix}").format(
                title=option.title, key=option.key, suffix=suffix
            )
        )
    return [line for line in lines if line]
