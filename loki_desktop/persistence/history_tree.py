"""The branches of a conversation in history.db: each message names the one it follows.

The branch shown is the path from the conversation's `leaf_id` up to a first message. A
message is written after the one it follows, so the ids along a path only grow, and
"oldest first" is "by id". Nothing here deletes: an abandoned branch stays reachable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from loki_desktop.core.i18n import _
from loki_desktop.core.messages import Branches
from loki_desktop.core.ports import NotInConversation

# The ids of the branch shown of :conversation, as a CTE named `path`.
PATH = (
    "WITH RECURSIVE path(id) AS ("
    "SELECT leaf_id FROM conversations WHERE id = :conversation AND leaf_id IS NOT NULL"
    " UNION ALL SELECT m.parent_id FROM messages m JOIN path ON m.id = path.id"
    " WHERE m.parent_id IS NOT NULL) "
)

# At most :limit ids going up from :start (NULL: none), as a CTE named `up`.
UP = (
    "WITH RECURSIVE up(id, n) AS (SELECT :start, 1 WHERE :start IS NOT NULL"
    " UNION ALL SELECT m.parent_id, up.n + 1 FROM messages m JOIN up ON m.id = up.id"
    " WHERE m.parent_id IS NOT NULL AND up.n < :limit) "
)


def page_start(db: sqlite3.Connection, conversation_id: str, before_id: int | None) -> int | None:
    """Where a page going up begins: the leaf, or the message before `before_id`."""
    if before_id is None:
        row = db.execute(
            "SELECT leaf_id FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
    else:
        row = db.execute(
            "SELECT parent_id FROM messages WHERE id = ? AND conversation_id = ?",
            (before_id, conversation_id),
        ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def at_leaf(
    db: sqlite3.Connection, conversation_id: str, turn: int | None
) -> tuple[int | None, int]:
    """The parent and turn of a message appended to the branch shown: it follows the leaf
    and takes the leaf's turn unless given one (0 when the branch is empty)."""
    row = db.execute(
        "SELECT c.leaf_id, m.turn FROM conversations c LEFT JOIN messages m ON m.id = c.leaf_id"
        " WHERE c.id = ?",
        (conversation_id,),
    ).fetchone()
    leaf, leaf_turn = (row[0], row[1]) if row is not None else (None, None)
    return leaf, turn if turn is not None else int(leaf_turn or 0)


def last_turn(db: sqlite3.Connection, conversation_id: str) -> int:
    """The highest turn number of the conversation, over every branch (0: none yet)."""
    row = db.execute(
        "SELECT COALESCE(MAX(turn), 0) FROM messages WHERE conversation_id = ?",
        (conversation_id,),
    ).fetchone()
    return int(row[0])


def rewind(db: sqlite3.Connection, conversation_id: str, message_id: int | None) -> None:
    """End the branch shown at `message_id` (None: before the first message); the next
    message written starts a sibling branch of what followed it."""
    if message_id is not None:
        _check_member(db, conversation_id, message_id)
    db.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (message_id, conversation_id))


def switch(db: sqlite3.Connection, conversation_id: str, message_id: int) -> None:
    """Show the branch through `message_id`: down to it, then on through the latest
    message written after each one."""
    _check_member(db, conversation_id, message_id)
    leaf = message_id
    while True:
        row = db.execute(
            "SELECT MAX(id) FROM messages WHERE conversation_id = ? AND parent_id = ?",
            (conversation_id, leaf),
        ).fetchone()
        if row[0] is None:
            break
        leaf = int(row[0])
    db.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (leaf, conversation_id))


def branches(
    db: sqlite3.Connection, conversation_id: str, among: Sequence[int] | None = None
) -> dict[int, Branches]:
    """The messages of the branch shown (or of `among`, the ones a page shows) that have
    other versions, with those versions."""
    siblings = (
        " JOIN messages s ON s.conversation_id = p.conversation_id AND s.parent_id IS p.parent_id"
    )
    if among is None:
        rows = db.execute(
            PATH + "SELECT p.id AS shown, s.id AS version FROM messages p"
            " JOIN path ON p.id = path.id" + siblings + " ORDER BY p.id, s.id",
            {"conversation": conversation_id},
        ).fetchall()
    else:
        marks = ", ".join("?" * len(among))
        rows = db.execute(
            "SELECT p.id AS shown, s.id AS version FROM messages p"
            + siblings
            + f" WHERE p.conversation_id = ? AND p.id IN ({marks}) ORDER BY p.id, s.id",
            (conversation_id, *among),
        ).fetchall()
    versions: dict[int, list[int]] = {}
    for shown, version in rows:
        versions.setdefault(shown, []).append(version)
    return {
        shown: Branches(tuple(ids), ids.index(shown))
        for shown, ids in versions.items()
        if len(ids) > 1
    }


def _check_member(db: sqlite3.Connection, conversation_id: str, message_id: int) -> None:
    row = db.execute(
        "SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?",
        (message_id, conversation_id),
    ).fetchone()
    if row is None:
        raise NotInConversation(
            _("Le message {message} n'est pas dans la conversation {id}.").format(
                message=message_id, id=conversation_id
            )
        )
