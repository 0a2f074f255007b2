"""Pulling a model: Ollama's per-layer progress lines folded into one progress, with speed.

`/api/pull` streams `{"status": "pulling manifest"}`, then for each layer, every ~60 ms,
`{"status": "pulling 6a0746a1ec1a", "digest": "sha256:…", "total": N, "completed": M}`
(`completed` may be missing before the first byte), then `verifying sha256 digest`,
`writing manifest`, `success` — or an `{"error": "…"}` line (server/download.go and
docs/api.md in ollama/ollama). A progress bar wants one figure: the bytes of every layer
summed, which never goes backwards when a small layer starts after a big one.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections import deque
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Any

from loki_desktop.core.i18n import _

# `name`, `name:tag`, `namespace/name:tag`, `host[:port]/namespace/name:tag` (Ollama's
# types/model/name.go: letters of either case, digits, `._-`, no part starting with `.`)
_PART = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_MODEL_NAME = re.compile(rf"(?:{_PART}(?::\d+)?/)?(?:{_PART}/)?{_PART}(?::{_PART})?")
SPEED_WINDOW_S = 5.0  # the speed is measured over the last few seconds, not since the start


class BadModelName(ValueError):
    """A name Ollama would refuse; the message is one sentence for a human."""


def check_model_name(name: str) -> str:
    """The name, stripped, or BadModelName with a sentence saying what a name looks like."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > 300 or not _MODEL_NAME.fullmatch(cleaned):
        raise BadModelName(
            _(
                "« {name} » n'est pas un nom de modèle : il s'écrit nom ou nom:étiquette, "
                "par exemple « qwen3:8b »."
            ).format(name=name)
        )
    return cleaned


@dataclass(frozen=True, slots=True)
class PullProgress:
    """Where a pull stands: its last status and the bytes of all layers so far."""

    status: str
    completed: int = 0
    total: int = 0
    bytes_per_s: float | None = None  # None until there is enough to measure

    @property
    def fraction(self) -> float | None:
        """0..1 once the size is known."""
        return min(self.completed / self.total, 1.0) if self.total else None

    @property
    def seconds_left(self) -> float | None:
        if not self.total or not self.bytes_per_s:
            return None
        return max(self.total - self.completed, 0) / self.bytes_per_s

    @property
    def finished(self) -> bool:
        return self.status == "success"


class PullTracker:
    """Folds the lines of one pull into PullProgress values (pure: the caller gives times)."""

    def __init__(self) -> None:
        self._layers: dict[str, tuple[int, int]] = {}  # digest -> (completed, total)
        self._samples: deque[tuple[float, int]] = deque()  # (time, completed) for the speed
        self.status = ""

    def feed(self, line: dict[str, Any], now: float) -> PullProgress:
        self.status = str(line.get("status") or self.status)
        digest = line.get("digest")
        if isinstance(digest, str) and digest:
            total = _count(line.get("total"))
            completed = min(_count(line.get("completed")), total) if total else 0
            previous = self._layers.get(digest, (0, 0))
            # a layer's bytes never go back (a resumed part reports from its own start)
            self._layers[digest] = (max(completed, previous[0]), max(total, previous[1]))
        completed = sum(done for done, _size in self._layers.values())
        total = sum(size for _done, size in self._layers.values())
        if self.status == "success" and total:
            completed = total
        return PullProgress(self.status, completed, total, self._speed(now, completed))

    def _speed(self, now: float, completed: int) -> float | None:
        samples = self._samples
        samples.append((now, completed))
        while len(samples) > 2 and now - samples[0][0] > SPEED_WINDOW_S:
            samples.popleft()
        first_time, first_bytes = samples[0]
        elapsed = now - first_time
        if elapsed < 0.5 or completed <= first_bytes:
            return None
        return (completed - first_bytes) / elapsed


class PullThrottle:
    """Lets a progress through at most `per_second` times a second (a 2 GB pull sends
    thousands of lines); the first, and a change of status, always pass."""

    def __init__(self, per_second: float = 10.0) -> None:
        self.interval = 1.0 / per_second
        self._last_time: float | None = None
        self._last_status = ""

    def due(self, progress: PullProgress, now: float) -> bool:
        if (
            self._last_time is None
            or progress.status != self._last_status
            or now - self._last_time >= self.interval
        ):
            self._last_time, self._last_status = now, progress.status
            return True
        return False


async def followed(
    lines: AsyncGenerator[dict[str, Any], None],
    *,
    per_second: float = 10.0,
    clock: Callable[[], float] = time.monotonic,
) -> AsyncGenerator[PullProgress, None]:
    """The progress of a pull from its lines, at most `per_second` times a second, and
    always the last one (the caller checks `finished`: a stream may end without success)."""
    tracker, throttle = PullTracker(), PullThrottle(per_second)
    progress: PullProgress | None = None
    shown: PullProgress | None = None
    async with contextlib.aclosing(lines):  # closed with us: a cancel ends the HTTP stream
        async for line in lines:
            now = clock()
            progress = tracker.feed(line, now)
            if throttle.due(progress, now):
                shown = progress
                yield progress
    if progress is not None and progress is not shown:
        yield progress


def pull_error_sentence(error: str, model: str) -> str:
    """What an `{"error": …}` of a pull means, and what to do (Ollama's own texts)."""
    low = error.lower()
    if "file does not exist" in low or "manifest unknown" in low or "not found" in low:
        return _(
            "Le modèle « {model} » n'existe pas dans la bibliothèque d'Ollama. Vérifiez son "
            "nom et son étiquette sur https://ollama.com/library (par exemple « qwen3:8b »)."
        ).format(model=model)
    if "no space left" in low or "disk full" in low or "not enough space" in low:
        return _(
            "Le disque est plein : « {model} » ne peut pas être téléchargé. Libérez de la place "
            "(ou supprimez un modèle dans Réglages → Modèles), puis relancez : Ollama reprend "
            "là où il s'était arrêté."
        ).format(model=model)
    network = ("dial tcp", "lookup", "no such host", "timeout", "connection", "tls", "eof")
    if any(word in low for word in network):
        return _(
            "Ollama n'arrive pas à joindre sa bibliothèque pour télécharger « {model} » "
            "({error}). Vérifiez la connexion à Internet de la machine d'Ollama, puis relancez : "
            "le téléchargement reprendra là où il s'est arrêté."
        ).format(model=model, error=error)
    return _("Le téléchargement de « {model} » a échoué : {error}").format(model=model, error=error)


def human_bytes(count: float) -> str:
    """1_500_000 -> "1,5 Mo": decimal units, as Ollama and its library show sizes."""
    units = (_("o"), _("Ko"), _("Mo"), _("Go"), _("To"))
    value = float(count)
    for unit in units:
        if value < 1000 or unit == units[-1]:
            text = f"{value:.0f}" if unit == units[0] or value >= 100 else f"{value:.1f}"
            return f"{text.replace('.', ',')}\u00a0{unit}"
        value /= 1000
    raise AssertionError("unreachable")


def human_duration(seconds: float) -> str:
    """75 -> "1 min 15 s"."""
    whole = round(seconds)
    if whole < 60:
        return _("{s} s").format(s=whole)
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return _("{m} min {s} s").format(m=minutes, s=secs)
    hours, minutes = divmod(minutes, 60)
    return _("{h} h {m} min").format(h=hours, m=minutes)


def describe(progress: PullProgress) -> str:
    """One line: "42 % — 1,2 Go sur 2,9 Go — 11,0 Mo/s — encore 2 min 30 s"."""
    if progress.fraction is None:
        return status_text(progress.status)
    parts = [
        f"{progress.fraction * 100:.0f}\u00a0%",
        _("{done} sur {total}").format(
            done=human_bytes(progress.completed), total=human_bytes(progress.total)
        ),
    ]
    if progress.bytes_per_s:
        parts.append(_("{speed}/s").format(speed=human_bytes(progress.bytes_per_s)))
    if (left := progress.seconds_left) is not None and not progress.finished:
        parts.append(_("encore {duration}").format(duration=human_duration(left)))
    if not progress.status.startswith("pulling ") and progress.status:
        parts.append(status_text(progress.status))
    return " — ".join(parts)


def status_text(status: str) -> str:
    """Ollama's status words in the person's language."""
    known = {
        "pulling manifest": _("lecture du manifeste"),
        "verifying sha256 digest": _("vérification de l'empreinte"),
        "writing manifest": _("écriture du manifeste"),
        "removing any unused layers": _("nettoyage"),
        "success": _("terminé"),
    }
    if status.startswith("pulling ") and status not in known:
        return _("téléchargement")
    return known.get(status, status)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0
