"""The lossless JSON export of a conversation (every branch, images inline) and its parser.

    {"kind": "loki-desktop-conversation", "format": 1, "exported_by": "loki-desktop 0.1.0",
     "conversation": {"id", "title", "workspace", "created_at", "updated_at", "pinned", "leaf"},
     "messages": [{"id", "parent", "turn", "created_at", "role", "origin", "content", "cut",
                   "thinking", "thinking_seconds", "tool_calls": [{"id", "name", "args"}],
                   "tool_call_id", "tool_name", "meta": {...}, "images": [{"mime_type",
                   "width", "height", "name", "data": base64}]}]}

`meta` is MessageMeta's stored shape (core.message_meta). Message ids are numbers inside the
file (1, 2, ... in the order written); `parent` names an earlier one. `parse_export` is a
pure function over text: anything but a well-formed export of a format it reads raises
ExportFormatError with one sentence, and nothing else.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, cast, get_args

from loki_desktop import __version__
from loki_desktop.core.i18n import _
from loki_desktop.core.image_attachment import ImageAttachment
from loki_desktop.core.message_meta import MessageMeta
from loki_desktop.core.messages import (
    CallRecord,
    ChatMessage,
    ConversationExport,
    Origin,
    Role,
    StoredMessage,
)

KIND = "loki-desktop-conversation"
FORMAT = 1
IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp", "image/gif")


class ExportFormatError(ValueError):
    """A file that is not an export this Loki can import (one sentence for a human)."""


# --- writing ------------------------------------------------------------------------


def to_dict(conversation: ConversationExport) -> dict[str, Any]:
    """The export as plain JSON values (images read from their files: raises OSError)."""
    return {
        "kind": KIND,
        "format": FORMAT,
        "exported_by": f"loki-desktop {__version__}",
        "conversation": {
            "id": conversation.id,
            "title": conversation.title,
            "workspace": conversation.workspace,
            "created_at": conversation.created_at,
            "updated_at": conversation.updated_at,
            "pinned": conversation.pinned,
            "leaf": conversation.leaf,
        },
        "messages": [_message_dict(stored) for stored in conversation.messages],
    }


def to_json(conversation: ConversationExport) -> str:
    return json.dumps(to_dict(conversation), ensure_ascii=False, indent=1) + "\n"


def _message_dict(stored: StoredMessage) -> dict[str, Any]:
    message = stored.message
    return {
        "id": message.id,
        "parent": stored.parent,
        "turn": message.turn,
        "created_at": stored.created_at,
        "role": message.role,
        "origin": message.origin,
        "content": message.content,
        "cut": message.cut,
        "thinking": message.thinking,
        "thinking_seconds": message.thinking_seconds,
        "tool_calls": [{"id": c.id, "name": c.name, "args": c.args} for c in message.tool_calls],
        "tool_call_id": message.tool_call_id,
        "tool_name": message.tool_name,
        "meta": message.meta.to_json(),
        "images": [
            {
                "mime_type": image.mime_type,
                "width": image.width,
                "height": image.height,
                "name": image.name,
                "data": base64.b64encode(image.content()).decode("ascii"),
            }
            for image in message.images
        ],
    }


# --- reading ------------------------------------------------------------------------


def parse_export(text: str) -> ConversationExport:
    """The conversation a JSON export holds; raises ExportFormatError (and nothing else)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ExportFormatError(
            _(
                "Ce fichier n'est pas un export JSON lisible (il est peut-être tronqué ou "
                "abîmé) : {error}."
            ).format(error=exc)
        ) from exc
    return from_dict(data)


def from_dict(data: object) -> ConversationExport:
    """The conversation of parsed JSON values; raises ExportFormatError."""
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise ExportFormatError(
            _("Ce fichier n'est pas un export de conversation de Loki Desktop.")
        )
    version = data.get("format")
    if version != FORMAT or isinstance(version, bool):
        newer = isinstance(version, int) and not isinstance(version, bool) and version > FORMAT
        raise ExportFormatError(
            (
                _(
                    "Cet export est au format {found}, plus récent que celui que cette version "
                    "de Loki lit ({ours}) : mettez Loki à jour pour l'importer."
                )
                if newer
                else _(
                    "Cet export est au format {found}, que cette version de Loki ne lit pas "
                    "(elle lit le format {ours})."
                )
            ).format(found=json.dumps(version), ours=FORMAT)
        )
    head = _field(data, "conversation", dict, _("l'en-tête"))
    listed = _field(data, "messages", list, _("l'en-tête"))
    messages = _messages(listed)
    known = {stored.message.id for stored in messages}
    leaf = _optional_int(head, "leaf", _("l'en-tête"))
    if leaf is not None and leaf not in known:
        raise _damaged(_("l'en-tête"), "leaf")
    return ConversationExport(
        id=_conversation_id(head),
        title=_field(head, "title", str, _("l'en-tête")),
        workspace=_optional(head, "workspace", str, _("l'en-tête")),
        created_at=_number(head, "created_at", _("l'en-tête")),
        updated_at=_number(head, "updated_at", _("l'en-tête")),
        pinned=_field(head, "pinned", bool, _("l'en-tête")),
        leaf=leaf,
        messages=messages,
    )


def _messages(listed: list[Any]) -> tuple[StoredMessage, ...]:
    """Each message, its id new and its parent written before it (so an import can insert
    them in order)."""
    seen: set[int] = set()
    messages = []
    for position, item in enumerate(listed, start=1):
        where = _("le message {n}").format(n=position)
        if not isinstance(item, dict):
            raise _damaged(where, "")
        stored = _stored(item, where)
        number = stored.message.id
        assert number is not None  # _stored reads it as an int
        if number in seen:
            raise _damaged(where, "id")
        if stored.parent is not None and stored.parent not in seen:
            raise _damaged(where, "parent")
        seen.add(number)
        messages.append(stored)
    return tuple(messages)


def _stored(item: dict[str, Any], where: str) -> StoredMessage:
    role = _field(item, "role", str, where)
    origin = _field(item, "origin", str, where)
    if role not in get_args(Role):
        raise _damaged(where, "role")
    if origin not in get_args(Origin):
        raise _damaged(where, "origin")
    message = ChatMessage(
        role=cast(Role, role),
        content=_field(item, "content", str, where),
        tool_calls=_calls(_field(item, "tool_calls", list, where), where),
        tool_call_id=_optional(item, "tool_call_id", str, where),
        tool_name=_optional(item, "tool_name", str, where),
        origin=cast(Origin, origin),
        cut=_field(item, "cut", bool, where),
        meta=MessageMeta.from_json(_field(item, "meta", dict, where)),
        id=_int(item, "id", where),
        thinking=_field(item, "thinking", str, where),
        thinking_seconds=_optional_number(item, "thinking_seconds", where),
        images=_images(_field(item, "images", list, where), where),
        turn=_optional_int(item, "turn", where),
    )
    return StoredMessage(
        message, _optional_int(item, "parent", where), _number(item, "created_at", where)
    )


def _calls(listed: list[Any], where: str) -> tuple[CallRecord, ...]:
    calls = []
    for call in listed:
        if not isinstance(call, dict):
            raise _damaged(where, "tool_calls")
        calls.append(
            CallRecord(
                _field(call, "id", str, where),
                _field(call, "name", str, where),
                _field(call, "args", dict, where),
            )
        )
    return tuple(calls)


def _images(listed: list[Any], where: str) -> tuple[ImageAttachment, ...]:
    images = []
    for image in listed:
        if not isinstance(image, dict) or image.get("mime_type") not in IMAGE_TYPES:
            raise _damaged(where, "images")
        try:
            data = base64.b64decode(_field(image, "data", str, where), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise _damaged(where, "images") from exc
        if not data:
            raise _damaged(where, "images")
        images.append(
            ImageAttachment(
                mime_type=image["mime_type"],
                width=_int(image, "width", where),
                height=_int(image, "height", where),
                data=data,
                name=_field(image, "name", str, where),
            )
        )
    return tuple(images)


# --- fields -------------------------------------------------------------------------


def _field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    # a bool is an int to Python: never take one for the other
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise _damaged(where, key)
    return value


def _optional(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    return None if data.get(key) is None else _field(data, key, kind, where)


def _int(data: dict[str, Any], key: str, where: str) -> int:
    return cast(int, _field(data, key, int, where))


def _optional_int(data: dict[str, Any], key: str, where: str) -> int | None:
    return None if data.get(key) is None else _int(data, key, where)


def _number(data: dict[str, Any], key: str, where: str) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _damaged(where, key)
    return float(value)


def _optional_number(data: dict[str, Any], key: str, where: str) -> float | None:
    return None if data.get(key) is None else _number(data, key, where)


def _conversation_id(head: dict[str, Any]) -> str:
    """An id as Loki makes them: it names a folder of images, so nothing that could climb."""
    value = _field(head, "id", str, _("l'en-tête"))
    if not value or len(value) > 64 or not all(c.isalnum() or c in "-_" for c in value):
        raise _damaged(_("l'en-tête"), "id")
    return cast(str, value)


def _damaged(where: str, key: str) -> ExportFormatError:
    if key:
        return ExportFormatError(
            _("Cet export est abîmé ({where}, champ « {key} ») : rien n'a été importé.").format(
                where=where, key=key
            )
        )
    return ExportFormatError(
        _("Cet export est abîmé ({where}) : rien n'a été importé.").format(where=where)
    )
