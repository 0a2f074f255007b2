"""The lexical router: at most one skill per message, from weighted whole-word signals.

Each skill's terms are compiled once into lookup tables; routing a message is then one pass
over its words. A skill scores the sum of its distinct signals:

    name       3   the skill's own name ("refactor-sur")
    strong     3   an error name (*error), "stack trace", "sans changer le comportement"
    pair       3   an action word near its object: "corrige … bug", "programme … plante"
    extension  2   a file extension: "un fichier .csv"; 3 on a named file: "ventes.csv"
    weak       1   "bug", "css", "moyenne"

A skill needs THRESHOLD points, so one strong signal is enough and one weak word never is.
Questions asking what something is ("qu'est-ce qu'un CSV ?", "what is a TypeError?"), who
did something or where to report a bug (core.skills.answers) lose DAMPING points: they want
an answer, not a method. The best score wins; ties go to the
skill with the strongest single signal, then the most signals, then the name's order.

That is the rules' pick. With the example-based opinion (examples.py), the router's
decision is the stacked one (stack.py): the rules' points and the examples' log-odds weighed
together, so the examples can overrule the rules either way.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from loki_desktop.core.skills.answers import (
    ANSWER_PHRASES,
    asks_who,
    command_first,
    device_trouble,
)
from loki_desktop.core.skills.examples import (
    ExampleModel,
    Resemblance,
    features,
    words_ask_for_help,
)
from loki_desktop.core.skills.model import Skill
from loki_desktop.core.skills.stack import THRESHOLD, Verdict, weigh
from loki_desktop.core.skills.stems import stems, term_stems
from loki_desktop.core.skills.tense import not_asked
from loki_desktop.core.skills.terms import (
    MIN_STEM,
    Extension,
    Pair,
    Phrase,
    Prefix,
    Suffix,
    Term,
    WordTerm,
    parse_pair,
    parse_term,
)
from loki_desktop.core.skills.text import (
    bounded,
    extensions,
    named_extensions,
    normalize,
    words,
)

HitKind = Literal["name", "strong", "pair", "extension", "weak"]
WEIGHTS: dict[HitKind, int] = {"name": 3, "strong": 3, "pair": 3, "extension": 2, "weak": 1}
# an extension on a named file ("ventes.csv", not "un fichier .csv") weighs as a strong term
NAMED_FILE = 3
DAMPING = 2
# A device's trouble told first ("My phone keeps crashing since the update") is no code to
# debug: it takes three strong signals (a paste with an error, its trace and more) to pass.
DEVICE_DAMPING = 6
PAIR_WINDOW = 4  # words between an action and its object ("corrige-moi vite ce bug")

# Definitional questions, normalised. "c'est quoi cette erreur ?" is not one (no article).
DEFINITIONAL = (
    "qu est ce qu un",
    "qu est ce qu une",
    "qu est ce que le",
    "qu est ce que la",
    "qu est ce que les",
    "c est quoi un",
    "c est quoi une",
    "c est quoi le",
    "c est quoi la",
    "c est quoi les",
    "ce qu est un",
    "ce qu est une",
    "que veut dire",
    "que signifie",
    "difference entre",
    "definition de",
    "what is a",
    "what is an",
    "what s a",
    "what s an",
    "what is the difference",
    "what s the difference",
    "difference between",
    "explain what",
    "meaning of",
    "definition of",
    "stand for",
    "a quoi sert",
    "a quoi servent",
    "quel est le role",
    "what is the role",
    "what does a",
    "what does an",
    "ca veut dire quoi",
    "veut dire quoi",
)
# "what does refactoring mean?": the question's words are apart, so it is checked on its own.
MEANING_QUESTION = (("what", "does"), "mean")


@dataclass(frozen=True, slots=True)
class Hit:
    """One signal found in the message: its kind, the words that matched, its points."""

    kind: HitKind
    words: str
    points: int


@dataclass(frozen=True, slots=True)
class Score:
    skill: Skill
    points: int
    hits: tuple[Hit, ...]


@dataclass(frozen=True, slots=True)
class Routing:
    """The router's decision and why: what `skills --explain` prints."""

    skill: Skill | None
    scores: tuple[Score, ...]  # the skills with at least one signal, best first
    damped_by: str | None = None  # the definitional phrase that lowered every score...
    penalty: int = 0  # ...by this many points
    threshold: int = THRESHOLD
    # when the examples swung the decision: the skill they favour, and through which stems
    resemblance: Resemblance | None = None
    # the stacked totals (core.skills.stack); None for a router without examples
    verdict: Verdict | None = None


@dataclass(frozen=True, slots=True)
class _Signal:
    """A term of a skill, as the tables point at it; `id` makes each count once."""

    id: int
    skill: int
    kind: HitKind
    # a word pattern ("refactor*") names an action, which a past tense cancels like a pair's
    # ("mon équipe a refactorisé le backend" tells)
    action: bool = False


@dataclass(frozen=True, slots=True)
class _PairSide:
    pair: int
    left: bool


_Target = _Signal | _PairSide


class Router:
    """Routes messages to skills. Built once per skill list; `pick` and `route` are pure.

    With `examples` (core.skills.examples), the decision is the stacked one
    (core.skills.stack): the rules' points and the examples' log-odds weighed together.
    Without, the rules alone decide: the best skill reaching THRESHOLD points."""

    def __init__(self, skills: Sequence[Skill], examples: ExampleModel | None = None) -> None:
        self.skills = tuple(skills)
        self.examples = examples
        self._learned_names: frozenset[str] | None = None
        self._learned_from: ExampleModel | None = None
        self._by_name = {skill.name: skill for skill in self.skills}
        self._exact: dict[str, list[_Target]] = defaultdict(list)
        self._phrases: dict[str, list[tuple[tuple[str, ...], _Signal]]] = defaultdict(list)
        # keyed by the first MIN_STEM letters, so a word looks at a handful of stems
        self._prefixes: dict[str, list[tuple[str, _Target]]] = defaultdict(list)
        self._suffixes: list[tuple[str, _Target]] = []
        self._extensions: dict[str, list[_Signal]] = defaultdict(list)
        self._pairs: list[_Signal] = []
        # the same words and phrases by stem: "regroupées" finds the term "regrouper"
        self._stemmed: dict[str, list[_Target]] = defaultdict(list)
        self._stemmed_phrases: dict[str, list[tuple[tuple[_Keys, ...], _Signal]]] = defaultdict(
            list
        )
        self._signals = 0
        # one signal per skill, kind and stems: "erreur" and "erreurs" count once, and so do
        # "renders twice" and "rendered twice"
        self._by_stem: dict[tuple[int, HitKind, tuple[str, ...]], _Signal] = {}
        for index, skill in enumerate(self.skills):
            self._add(index, "name", parse_term(skill.name))
            weighted: tuple[tuple[HitKind, tuple[str, ...]], ...] = (
                ("strong", skill.strong),
                ("weak", skill.keywords),
            )
            for kind, terms in weighted:
                for raw in terms:
                    self._add(index, kind, parse_term(raw))
            for raw in skill.extensions:
                self._add(index, "extension", parse_term(raw))
            for raw in skill.pairs:
                self._add_pair(index, parse_pair(raw))
        self._suffix_tails = tuple(tail for tail, _target in self._suffixes)
        self._definitional: dict[str, list[tuple[str, ...]]] = defaultdict(list)
        for phrase in (*DEFINITIONAL, *ANSWER_PHRASES):
            first, *rest = phrase.split()
            self._definitional[first].append(tuple(rest))

    # --- routing ---------------------------------------------------------------------

    def pick(self, message: str) -> Skill | None:
        """The skill for this message, or None."""
        return self.route(message).skill

    def route(self, message: str) -> Routing:
        """The decision with every signal that counted (for `--explain` and the window)."""
        text = normalize(bounded(message))
        tokens = words(text)
        hits: dict[int, tuple[int, Hit]] = {}
        damped_by: str | None = None
        sides: dict[int, tuple[list[tuple[int, str]], list[tuple[int, str]]]] = defaultdict(
            lambda: ([], [])
        )

        def found(target: _Target, position: int, matched: str) -> None:
            if isinstance(target, _PairSide):
                if target.left and not_asked(tokens, position):
                    return
                sides[target.pair][0 if target.left else 1].append((position, matched))
            elif target.id not in hits:
                if target.action and not_asked(tokens, position):
                    return
                hit = Hit(target.kind, matched, WEIGHTS[target.kind])
                hits[target.id] = (target.skill, hit)

        for position, token in enumerate(tokens):
            if damped_by is None and token in self._definitional:
                damped_by = _phrase_at(tokens, position, self._definitional[token])
            for target in self._exact.get(token, ()):
                found(target, position, token)
            for rest, signal in self._phrases.get(token, ()):
                if tuple(tokens[position + 1 : position + 1 + len(rest)]) == rest:
                    found(signal, position, " ".join((token, *rest)))
            token_stems = stems(token)
            for stem in token_stems:
                for target in self._stemmed.get(stem, ()):
                    found(target, position, f"{token} ({stem}*)")
            for stem in token_stems or (token,):
                for keys, signal in self._stemmed_phrases.get(stem, ()):
                    if _keys_follow(tokens, position + 1, keys):
                        matched = tokens[position : position + 1 + len(keys)]
                        found(signal, position, " ".join(matched) + f" ({stem}*)")
            for stem, target in self._prefixes.get(token[:MIN_STEM], ()):
                if token.startswith(stem):
                    found(target, position, token)
            if self._suffix_tails and token.endswith(self._suffix_tails):
                for tail, target in self._suffixes:
                    if token.endswith(tail) and len(token) >= len(tail) + 2:
                        found(target, position, token)
        if damped_by is None and _asks_meaning(tokens):
            damped_by = " … ".join((" ".join(MEANING_QUESTION[0]), MEANING_QUESTION[1]))
        penalty = DAMPING
        if damped_by is None:
            damped_by = asks_who(text) or command_first(tokens)
        if damped_by is None:
            damped_by = device_trouble(text)
            penalty = DEVICE_DAMPING
        named: set[str] | None = None  # looked for only when an extension counted
        for dotted in extensions(text):
            for signal in self._extensions.get(dotted, ()):
                found(signal, 0, dotted)
                if signal.id in hits:
                    named = named_extensions(text) if named is None else named
                    if dotted in named:  # a file of its own: what to work on
                        skill, hit = hits[signal.id]
                        hits[signal.id] = (skill, replace(hit, points=NAMED_FILE))
        for pair_id, (left, right) in sides.items():
            near = _nearest(left, right)
            if near is not None:
                found(self._pairs[pair_id], 0, near)
        routing = self._decide(hits.values(), damped_by, penalty if damped_by else 0)
        if self.examples is None:
            return routing
        return self._stacked(routing, tokens, self.examples)

    def _stacked(self, routing: Routing, tokens: list[str], examples: ExampleModel) -> Routing:
        """The rules' points and the examples' odds weighed together (core.skills.stack)."""
        verdict = weigh(
            self.skills,
            {score.skill.name: score.points for score in routing.scores},
            routing.skill.name if routing.skill else None,
            examples.log_odds_of(tokens),
            self._learned(examples),
            cue=routing.damped_by is not None,
            helped=words_ask_for_help(tokens),
        )
        winner = verdict.winner
        resemblance = None
        if winner is not None and winner is not routing.skill:  # the examples swung it
            known = features(" ".join(tokens)) & examples.vocabulary
            resemblance = Resemblance(winner.name, examples.telling(winner.name, known))
        return Routing(
            winner,
            routing.scores,
            routing.damped_by,
            routing.penalty,
            routing.threshold,
            resemblance,
            verdict,
        )

    def _learned(self, examples: ExampleModel) -> frozenset[str]:
        if self._learned_names is None or self._learned_from is not examples:
            self._learned_names = frozenset(self._by_name) & frozenset(examples.labels)
            self._learned_from = examples
        return self._learned_names

    def _decide(
        self, found: Iterable[tuple[int, Hit]], damped_by: str | None, penalty: int
    ) -> Routing:
        per_skill: dict[int, list[Hit]] = defaultdict(list)
        for skill, hit in found:
            per_skill[skill].append(hit)
        scores = []
        for index, hits in per_skill.items():
            points = sum(hit.points for hit in hits) - penalty
            ordered = tuple(sorted(hits, key=lambda hit: -hit.points))
            scores.append(Score(self.skills[index], max(points, 0), ordered))
        scores.sort(
            key=lambda s: (
                -s.points,
                -max(hit.points for hit in s.hits),
                -len(s.hits),
                s.skill.name,
            )
        )
        best = scores[0] if scores and scores[0].points >= THRESHOLD else None
        return Routing(best.skill if best else None, tuple(scores), damped_by, penalty)

    # --- compiling -------------------------------------------------------------------

    def _new_signal(self, skill: int, kind: HitKind) -> _Signal:
        self._signals += 1
        return _Signal(self._signals, skill, kind)

    def _add(self, skill: int, kind: HitKind, term: Term) -> None:
        signal = self._new_signal(skill, kind)
        if isinstance(term, Phrase):
            signal = self._by_stem.setdefault((skill, kind, _phrase_key(term)), signal)
        match term:
            case Extension(dotted=dotted):
                self._extensions[dotted].append(signal)
            case Phrase(words=(word,)):
                self._exact[word].append(signal)
                self._add_stems(word, signal)
            case Phrase(words=(first, *rest)):
                self._phrases[first].append((tuple(rest), signal))
                keys = tuple(_keys(word) for word in rest)
                for key in term_stems(first) or (first,):
                    self._stemmed_phrases[key].append((keys, signal))
            case Prefix():
                self._add_word(term, replace(signal, action=True))
            case _:
                self._add_word(term, signal)

    def _add_pair(self, skill: int, pair: Pair) -> None:
        pair_id = len(self._pairs)
        self._pairs.append(self._new_signal(skill, "pair"))
        for left, side in ((True, pair.left), (False, pair.right)):
            for term in side:
                self._add_word(term, _PairSide(pair_id, left))

    def _add_word(self, term: WordTerm | Term, target: _Target) -> None:
        match term:
            case Phrase(words=(word,)):
                self._exact[word].append(target)
                self._add_stems(word, target)
            case Prefix(stem=stem):
                self._prefixes[stem[:MIN_STEM]].append((stem, target))
            case Suffix(tail=tail):
                self._suffixes.append((tail, target))
            case _:  # the loader refuses anything else in a pair
                raise ValueError(f"not a one-word term: {term!r}")

    def _add_stems(self, word: str, target: _Target) -> None:
        for stem in term_stems(word):
            self._stemmed[stem].append(target)


_Keys = frozenset[str]


def _phrase_key(phrase: Phrase) -> tuple[str, ...]:
    """What makes two terms the same signal: each word's shortest stem (or the word when
    short), so "renders" (render) and "rendered" (render, rendered) are one."""
    return tuple(
        min(term_stems(word), key=lambda stem: (len(stem), stem), default=word)
        for word in phrase.words
    )


@lru_cache(maxsize=8192)  # a phrase's next word is looked at for every token that starts one
def _keys(word: str) -> _Keys:
    """What a phrase word is compared by: its stems, or itself when too short to stem."""
    return frozenset(stems(word) or (word,))


def _keys_follow(tokens: list[str], start: int, keys: tuple[_Keys, ...]) -> bool:
    """True when the words from `start` on match `keys` one by one (by stem or as is)."""
    if start + len(keys) > len(tokens):
        return False
    return all(keys[i] & _keys(tokens[start + i]) for i in range(len(keys)))


def _asks_meaning(tokens: list[str]) -> bool:
    """True for "what does X mean?": it starts with "what does" and ends with "mean"."""
    start, last = MEANING_QUESTION
    return bool(tokens) and tuple(tokens[: len(start)]) == start and tokens[-1] == last


def _phrase_at(tokens: list[str], position: int, rests: list[tuple[str, ...]]) -> str | None:
    """The phrase starting at `position` whose other words are one of `rests`, or None."""
    for rest in rests:
        if tuple(tokens[position + 1 : position + 1 + len(rest)]) == rest:
            return " ".join((tokens[position], *rest))
    return None


def _nearest(left: list[tuple[int, str]], right: list[tuple[int, str]]) -> str | None:
    """The closest action/object couple within the window, in message order, or None.

    Both lists are in message order; each left word looks only at its right neighbours
    just before and just after it, so a long paste full of such words stays cheap.
    """
    positions = [position for position, _word in right]
    best: tuple[int, str] | None = None
    for left_pos, left_word in left:
        before = bisect_left(positions, left_pos) - 1
        after = bisect_right(positions, left_pos)
        for index in (before, after):
            if not 0 <= index < len(right):
                continue
            right_pos, right_word = right[index]
            distance = abs(left_pos - right_pos)
            if distance <= PAIR_WINDOW and (best is None or distance < best[0]):
                first, second = (
                    (left_word, right_word) if left_pos < right_pos else (right_word, left_word)
                )
                best = (distance, f"{first} … {second}")
    return best[1] if best else None
