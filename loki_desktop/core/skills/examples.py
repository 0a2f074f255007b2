"""The router's second opinion: which skill a message resembles, from labelled examples.

The lexical rules (router.py) are precise but only know the words someone wrote into a
skill file. A multinomial naive Bayes over the message's stems, learned from the requests in
`skills/examples/*.tsv` (each labelled with its skill or `none`), gives each skill's
log-odds over `none` (log_odds), which the stacked decision (stack.py) weighs with the rules'
points for every message. It is lexical and instant like the rules (no model call): one
tuple of log-odds read per word.

resemble() is the earlier decision, kept for `python -m bench.skills_cv`: `none` favoured by
NONE_BONUS (by the smaller HELP_BONUS when the message asks for help), both chosen by a
10-fold cross-validation on the examples. The router no longer reads them.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from loki_desktop.core.skills.stems import shortest_stem, shortest_stems
from loki_desktop.core.skills.text import bounded, normalize, words

NONE = "none"
NONE_BONUS = 6.9  # python -m bench.skills_cv over 1,331 examples chose 6.84
HELP_BONUS = 2.9  # ...and 2.85 over those that ask for help
HELP_WORDS = frozenset(
    {"pourquoi", "aide", "aider", "peux", "pouvez", "stp", "svp", "corrige", "trouve"}
    | {"why", "help", "can", "could", "please", "fix", "find"}
)
SMOOTHING = 0.5  # additive (Lidstone) smoothing of each class's stem counts
SHOWN_STEMS = 4  # the stems `skills --explain` names
WORD_CACHE = 10_000  # words whose stem and log-odds routing remembers (~2 MB at most)
_UNKNOWN = ("", ())  # not looked up yet (None: looked up, and no example has it)


@dataclass(frozen=True, slots=True)
class Resemblance:
    """What the examples say: the label, and the stems that weighed most for it."""

    label: str
    stems: tuple[str, ...]


def features(message: str) -> set[str]:
    """The message's words, each as its shortest stem (the word itself when too short)."""
    return {_feature(word) for word in _words(message)}


_APART = "\x00"  # between messages normalised together: no message holds it, NFKD keeps it


def many_features(messages: list[str]) -> list[set[str]]:
    """features() of many messages, each distinct word stemmed once and in bulk."""
    if not messages:  # "".split() would still give one empty message
        return []
    # one normalisation of all the text: per message, it is a third of the learning time
    joined = normalize(_APART.join(bounded(m).replace(_APART, " ") for m in messages))
    tokenised = [words(text) for text in joined.split(_APART)]
    feature = shortest_stems({word for tokens in tokenised for word in tokens})
    return [{feature[word] for word in tokens} for tokens in tokenised]


def asks_for_help(message: str) -> bool:
    """True when the message asks for help in so many words ("pourquoi", "can you", "fix")."""
    return words_ask_for_help(_words(message))


def words_ask_for_help(tokens: Iterable[str]) -> bool:
    """asks_for_help() of a message already normalised and split into words."""
    return not HELP_WORDS.isdisjoint(tokens)


def _words(message: str) -> list[str]:
    return words(normalize(bounded(message)))


_feature = lru_cache(maxsize=4096)(shortest_stem)  # routing asks about a few words at a time


class ExampleModel:
    """Naive Bayes over stem presence, built once from (label, message) pairs."""

    def __init__(
        self,
        examples: Iterable[tuple[str, str]],
        *,
        none_bonus: float = NONE_BONUS,
        help_bonus: float = HELP_BONUS,
    ) -> None:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        sizes: Counter[str] = Counter()
        rows = list(examples)
        learned = many_features([message for _label, message in rows])
        for (label, _message), found in zip(rows, learned, strict=True):
            sizes[label] += 1
            counts[label].update(found)
        vocabulary = set().union(*counts.values()) if counts else set()
        total = sum(sizes.values())
        self.labels = tuple(sorted(sizes))
        self._prior = {
            label: math.log(sizes[label] / total) + (none_bonus if label == NONE else 0.0)
            for label in self.labels
        }
        self._log: dict[str, dict[str, float]] = {}
        self._unseen: dict[str, float] = {}
        for label in self.labels:
            denominator = sum(counts[label].values()) + SMOOTHING * len(vocabulary)
            self._log[label] = {
                stem: math.log((count + SMOOTHING) / denominator)
                for stem, count in counts[label].items()
            }
            self._unseen[label] = math.log(SMOOTHING / denominator)
        self.vocabulary = frozenset(vocabulary)
        self._none_bonus = none_bonus if NONE in self._prior else 0.0
        self._odds_table()
        # what a message asking for help gets back of the bonus (none when learning unbiased)
        self._relief = max(0.0, none_bonus - help_bonus)

    def resemble(self, message: str, allowed: frozenset[str]) -> Resemblance:
        """The most likely label among `allowed` and `none` (`none` when nothing is known)."""
        known = features(message) & self.vocabulary
        label, odds = self._best(known, allowed)
        if self._relief and asks_for_help(message):
            odds += self._relief
        if label == NONE or odds <= 0.0:
            return Resemblance(NONE, ())
        return Resemblance(label, self.telling(label, known))

    def odds(self, message: str, allowed: frozenset[str]) -> tuple[str, float]:
        """The likeliest skill in `allowed` and its log-odds over `none` (NONE_BONUS included,
        whether the message asks for help or not): what the cross-validation sweeps over."""
        return self._best(features(message) & self.vocabulary, allowed)

    def _odds_table(self) -> None:
        """Per stem, each skill's log-odds over `none` (what log_odds adds up, routing being
        on the hot path: one tuple per word instead of a table per label)."""
        self._skills = tuple(label for label in self.labels if label != NONE)
        self._base: tuple[float, ...] = ()
        self._delta: dict[str, tuple[float, ...]] = {}
        self._by_word: dict[str, tuple[str, tuple[float, ...]] | None] = {}
        if NONE not in self._prior:
            return
        none_prior = self._prior[NONE] - self._none_bonus
        self._base = tuple(self._prior[label] - none_prior for label in self._skills)
        none_table, none_unseen = self._log[NONE], self._unseen[NONE]
        tables = [(self._log[label], self._unseen[label]) for label in self._skills]
        for stem in self.vocabulary:
            none = none_table.get(stem, none_unseen)
            self._delta[stem] = tuple(table.get(stem, unseen) - none for table, unseen in tables)

    def log_odds(self, message: str) -> dict[str, float]:
        """Each skill's log-odds over `none`, with no bonus (none at all when no word of the
        message is known or no example says `none`): what the stacked decision weighs."""
        return self.log_odds_of(_words(message))

    def log_odds_of(self, tokens: Iterable[str]) -> dict[str, float]:
        """log_odds() of a message already normalised and split into words."""
        by_word = self._by_word
        found: dict[str, tuple[float, ...]] = {}  # a stem counts once, like in learning
        for word in tokens:
            hit = by_word.get(word, _UNKNOWN)
            if hit is _UNKNOWN:
                hit = self._looked_up(word)
            if hit is not None:
                found[hit[0]] = hit[1]
        if not found:
            return {}
        # summed column by column in C: this runs for every message
        columns = zip(*found.values(), strict=True)
        sums = [base + sum(column) for base, column in zip(self._base, columns, strict=True)]
        return dict(zip(self._skills, sums, strict=True))

    def _looked_up(self, word: str) -> tuple[str, tuple[float, ...]] | None:
        stem = _feature(word)
        delta = self._delta.get(stem)
        hit = None if delta is None else (stem, delta)
        if len(self._by_word) < WORD_CACHE:  # bounded: a long paste brings many new words
            self._by_word[word] = hit
        return hit

    def _best(self, known: set[str], allowed: frozenset[str]) -> tuple[str, float]:
        if not known:
            return NONE, -math.inf
        best_label, best_score = NONE, -math.inf
        for label in self.labels:
            if label == NONE or label not in allowed:
                continue
            score = self._score(label, known)
            if score > best_score:
                best_label, best_score = label, score
        if best_label == NONE or NONE not in self._prior:  # no `none` examples: no brake
            return best_label, best_score
        return best_label, best_score - self._score(NONE, known)

    def _score(self, label: str, known: set[str]) -> float:
        table, unseen = self._log[label], self._unseen[label]
        return self._prior[label] + sum(table.get(stem, unseen) for stem in known)

    def telling(self, label: str, known: set[str]) -> tuple[str, ...]:
        """The stems that favour `label` most over `none` (what --explain shows)."""
        none_table = self._log.get(NONE, {})
        none_unseen = self._unseen.get(NONE, 0.0)
        table, unseen = self._log[label], self._unseen[label]

        def lift(stem: str) -> float:
            return table.get(stem, unseen) - none_table.get(stem, none_unseen)

        telling = sorted((stem for stem in known if lift(stem) > 0), key=lambda s: (-lift(s), s))
        return tuple(telling[:SHOWN_STEMS])
