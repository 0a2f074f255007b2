"""The lexical router: whole words, weights, pairs, ties, definitional questions, bounds."""

from __future__ import annotations

import pytest

from loki_desktop.core.skills.loader import load_router
from loki_desktop.core.skills.model import Skill
from loki_desktop.core.skills.router import DAMPING, THRESHOLD, Router
from tests.core.skills.routers import builtin_router, mark_known_misroute


def skill(name: str, **terms: tuple[str, ...]) -> Skill:
    return Skill(name=name, title=name.title(), description="d", body=f"body of {name}", **terms)


def picked(router: Router, message: str) -> str:
    chosen = router.pick(message)
    return chosen.name if chosen else "none"


@pytest.fixture(scope="module", params=["rules", "shipped"])
def builtin(request: pytest.FixtureRequest) -> Router:
    """Each pick checked on the rules alone and on the router a turn uses (stacked)."""
    return builtin_router(request.param)


def test_whole_words_only() -> None:
    router = Router([skill("writing", strong=("plan",)), skill("debug", strong=("null",))])
    assert picked(router, "Fais-moi un plan") == "writing"
    assert picked(router, "Combien de planètes ?") == "none"
    assert picked(router, "La valeur est null") == "debug"
    assert picked(router, "La série était nulle") == "none"


def test_accent_and_case_insensitive_both_ways() -> None:
    router = Router([skill("fr", strong=("débogue",)), skill("en", strong=("Stack Trace",))])
    assert picked(router, "DEBOGUE ça") == "fr"
    assert picked(router, "Débogue ça") == "fr"
    assert picked(router, "here is the STACK-TRACE") == "en"


def test_prefix_and_suffix_wildcards() -> None:
    router = Router([skill("debug", strong=("*error", "corrig*"))])
    assert picked(router, "TypeError: bad operand") == "debug"
    assert picked(router, "ModuleNotFoundError") == "debug"
    assert picked(router, "corrigez") == "debug"
    # the suffix needs two letters before it; the word itself is not an error name
    assert picked(router, "an error") == "none"
    assert picked(router, "the terror") == "none"
    assert picked(router, "correction") == "none"


def test_extensions_count_once_and_weigh_more_than_a_word() -> None:
    router = Router([skill("data", extensions=(".csv",), keywords=("csv", "moyenne"))])
    routing = router.route("Range un fichier .csv")
    assert [(h.kind, h.words, h.points) for h in routing.scores[0].hits] == [
        ("extension", ".csv", 2)
    ]
    assert routing.skill is None  # 2 < THRESHOLD
    assert picked(router, "La moyenne dans un .CSV") == "data"
    assert router.route("un fichier csv").scores[0].points == 1


def test_a_named_file_weighs_as_a_strong_term() -> None:
    """ "ab_test.csv", "resultats_2024.csv": the message names the file to work on, which
    says more than a bare ".csv" (issue 21, fresh5: named data files with a question)."""
    router = Router([skill("tables", extensions=(".csv",))])
    for message in ("It is in support_tickets.csv", "resultats-2024.CSV : quel taux ?"):
        routing = router.route(message)
        assert [(h.kind, h.words, h.points) for h in routing.scores[0].hits] == [
            ("extension", ".csv", 3)
        ]
        assert picked(router, message) == "tables"
    assert router.route("range un fichier .csv").scores[0].hits[0].points == 2
    assert picked(router, "Ouvre ventes.csv") == "none"  # an order to open it: damped


def test_pairs_need_the_action_near_its_object_in_either_order() -> None:
    router = Router([skill("debug", pairs=("corrig* fix* | bug* erreur*",))])
    assert picked(router, "Corrige-moi vite ce bug") == "debug"
    assert picked(router, "j'ai un bug à corriger") == "debug"
    assert picked(router, "fix the bug") == "debug"
    assert picked(router, "corrige la phrase, puis plus tard on verra le bug") == "none"
    assert picked(router, "corrige ça") == "none"
    assert router.route("corrige ce bug").scores[0].hits[0].words == "corrige … bug"


def test_each_signal_counts_once() -> None:
    router = Router([skill("debug", keywords=("bug",))])
    assert router.route("bug bug bug bug").scores[0].points == 1


def test_one_weak_word_is_never_enough_and_one_strong_signal_is() -> None:
    router = Router([skill("debug", keywords=("bug",), strong=("traceback",))])
    assert picked(router, "c'est un bug") == "none"
    assert picked(router, "voici le traceback") == "debug"
    assert THRESHOLD == 3


def test_ties_are_broken_deterministically() -> None:
    # equal points: the strongest single signal wins, then the number of signals, then the name
    strong_one = skill("zeta", strong=("deploy",))
    three_weak = skill("alpha", keywords=("server", "release", "prod"))
    router = Router([three_weak, strong_one])
    assert picked(router, "deploy server release prod") == "zeta"
    twins = [skill("beta", strong=("deploy",)), skill("alpha", strong=("deploy",))]
    assert picked(Router(twins), "deploy") == "alpha"
    assert picked(Router(list(reversed(twins))), "deploy") == "alpha"


def test_definitional_questions_lose_points() -> None:
    router = Router([skill("debug", strong=("*error",))])
    routing = router.route("What is a TypeError?")
    assert routing.skill is None
    assert routing.damped_by == "what is a"
    assert routing.penalty == DAMPING
    assert routing.scores[0].points == 3 - DAMPING
    assert picked(router, "What is this TypeError?") == "debug"
    assert picked(router, "C'est quoi cette TypeError ?") == "debug"
    assert picked(router, "C'est quoi une TypeError ?") == "none"


def test_the_skill_name_is_a_strong_signal() -> None:
    """A skill written for another agent has no keywords: naming it is how to call it."""
    router = Router([skill("pdf-processing")])
    assert picked(router, "use pdf-processing on this file") == "pdf-processing"
    assert picked(router, "process this pdf") == "none"


def test_a_huge_paste_is_read_at_both_ends() -> None:
    router = Router([skill("debug", strong=("*error", "traceback"))])
    head = "Traceback (most recent call last):\n"
    tail = "ValueError: boom"
    routing = router.route(head + "  line of code\n" * 20_000 + tail)
    assert {hit.words for hit in routing.scores[0].hits} == {"traceback", "valueerror"}


def test_no_skills_routes_to_none() -> None:
    routing = Router([]).route("TypeError in main.py")
    assert routing.skill is None
    assert routing.scores == ()


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Mon script plante avec une KeyError, corrige-le", "debogage-systematique"),
        ("My app crashes on startup with a NullPointerException", "debogage-systematique"),
        ("Crée un site vitrine en HTML et CSS pour mon restaurant", "creation-web"),
        ("Build a landing page for my app", "creation-web"),
        ("Refactorise ce module sans changer son comportement", "refactor-sur"),
        ("Extract this logic into a separate function", "refactor-sur"),
        ("Calcule la moyenne des ventes dans ventes.csv", "analyse-donnees"),
        ("How many missing values are in survey.xlsx?", "analyse-donnees"),
        ("Rédige un rapport de synthèse pour la direction", "redaction-structuree"),
        ("Write a blog post about local LLMs", "redaction-structuree"),
        (
            "Peux-tu écrire la documentation technique de notre outil d'import ?",
            "redaction-structuree",
        ),
        ("Can you write the technical docs for our payment service?", "redaction-structuree"),
        ("Bonjour, comment vas-tu ?", "none"),
        ("Thanks a lot!", "none"),
        ("Quelle planète est la plus grosse ?", "none"),
    ],
)
def test_builtin_skills_route_clear_requests(builtin: Router, message: str, expected: str) -> None:
    assert picked(builtin, message) == expected


def test_asking_where_the_technical_documentation_is_needs_no_method() -> None:
    """ "documentation technique" is a writing term (router7); the rules alone pick the
    writing method for a question about where some documentation is, the shipped router
    (the examples weighed in) does not."""
    shipped, _notices = load_router(None)
    for message in (
        "Où trouver la documentation technique de Django ?",
        "Where is the API documentation?",
    ):
        assert picked(shipped, message) == "none", message


def test_explain_data_lists_the_words_that_scored(builtin: Router) -> None:
    routing = builtin.route("Corrige le bug : TypeError dans app.py")
    assert routing.skill is not None
    best = routing.scores[0]
    assert best.skill is routing.skill
    assert best.points == sum(hit.points for hit in best.hits)
    assert ("strong", "typeerror", 3) in [(h.kind, h.words, h.points) for h in best.hits]
    assert ("pair", "corrige … bug", 3) in [(h.kind, h.words, h.points) for h in best.hits]
    assert [h.points for h in best.hits] == sorted((h.points for h in best.hits), reverse=True)


def test_a_term_covers_its_inflections_in_both_languages() -> None:
    router = Router(
        [
            skill("data", strong=("regrouper",)),
            skill("debug", strong=("renders twice",)),
            skill("web", strong=("formulaire",)),
        ]
    )
    assert picked(router, "Les ventes regroupées par mois") == "data"
    assert picked(router, "regroupement des ventes") == "data"
    assert picked(router, "The header rendered twice") == "debug"
    assert picked(router, "Deux formulaires à faire") == "web"


def test_inflections_of_one_term_count_once() -> None:
    # "erreur" and "erreurs" share a stem: one weak signal, never two
    router = Router([skill("debug", keywords=("erreur", "erreurs", "console"))])
    routing = router.route("erreurs, erreurs et encore des erreur")
    assert routing.scores[0].points == 1


def test_short_words_match_only_as_written() -> None:
    # a short term would join words of the other language by stem: "null" and "nulle",
    # "none" and "non"
    router = Router([skill("debug", strong=("null", "none"))])
    assert picked(router, "La série était nulle") == "none"
    assert picked(router, "Non, merci") == "none"
    assert picked(router, "la valeur est None") == "debug"


def test_explain_shows_the_stem_that_matched() -> None:
    router = Router([skill("data", strong=("regrouper",))])
    hit = router.route("données regroupées").scores[0].hits[0]
    assert hit.words == "regroupees (regroup*)"


def test_inflected_phrases_count_once() -> None:
    router = Router([skill("debug", strong=("renders twice", "rendered twice"))])
    assert router.route("the list rendered twice").scores[0].points == 3


def test_the_examples_weigh_in_and_a_skill_without_examples_is_left_to_the_rules() -> None:
    from loki_desktop.core.skills.examples import ExampleModel

    examples = ExampleModel(
        [("debug", f"le serveur renvoie une erreur {n}") for n in range(20)]
        + [("none", f"bonjour comment vas tu {n}") for n in range(20)]
    )
    router = Router(
        [skill("debug", strong=("stack trace",)), skill("web", strong=("html",))], examples
    )
    routing = router.route("mon serveur renvoie une erreur bizarre")
    assert routing.skill is not None
    assert routing.skill.name == "debug"
    assert routing.resemblance is not None
    assert "serveur" in routing.resemblance.stems or "serveur" in " ".join(
        routing.resemblance.stems
    )
    assert routing.verdict is not None
    assert [w.skill.name for w in routing.verdict.skills] == ["debug", "web"]
    assert routing.verdict.skills[1].total is None  # no example of `web`: the rules decide
    web = router.route("une page html")
    assert web.skill is not None
    assert web.skill.name == "web"
    assert web.resemblance is None  # the rules decided
    assert router.pick("bonjour, comment vas-tu ?") is None


def test_an_answer_cue_weighs_for_none() -> None:
    from loki_desktop.core.skills.examples import ExampleModel
    from loki_desktop.core.skills.stack import NONE_CUE

    examples = ExampleModel(
        [("debug", f"mon serveur plante au démarrage {n}") for n in range(10)]
        + [("none", f"bonjour comment vas tu {n}") for n in range(10)]
    )
    router = Router([skill("debug", strong=("stack trace",))], examples)
    plain = router.route("le serveur plante au démarrage")
    asked = router.route("qu'est-ce qu'un serveur qui plante ?")
    assert plain.verdict is not None
    assert asked.verdict is not None
    assert asked.damped_by == "qu est ce qu un"
    assert asked.verdict.none == pytest.approx(plain.verdict.none + NONE_CUE)
    assert plain.skill is not None
    assert asked.skill is None
    # with the built-in skills and examples, a definitional question gets no method
    builtin, _notices = load_router(None)
    assert builtin.pick("qu'est-ce qu'un serveur qui renvoie une erreur ?") is None


def test_the_examples_can_overrule_the_rules() -> None:
    """The rules alone pick a method for these; the stacked decision says none."""
    builtin, _notices = load_router(None)
    rules = Router(builtin.skills)
    for message in (
        "Le site de la mairie ne marche plus depuis hier, c'est normal ?",
        "J'ai lu un article sur la dette technique, c'est un vrai sujet ?",
    ):
        assert rules.pick(message) is not None, message
        assert builtin.pick(message) is None, message


def test_a_past_tense_action_makes_no_pair(builtin: Router) -> None:
    # "j'ai trouvé l'erreur" tells what was done; "trouve l'erreur" asks for it
    assert picked(builtin, "C'est bon, j'ai trouvé l'erreur, merci") == "none"
    assert picked(builtin, "trouve l'erreur dans ce calcul") == "debogage-systematique"
    assert picked(builtin, "Nous avons fait un site pour le club") == "none"
    assert picked(builtin, "The login bug got fixed, thanks") == "none"
    # a need is not a past tense, and a symptom told in the past is still a bug report
    assert picked(builtin, "j'ai besoin d'un site pour mon club") == "creation-web"
    assert picked(builtin, "The parser returned None instead of a list") == "debogage-systematique"


def test_what_does_it_mean_is_a_definitional_question(builtin: Router) -> None:
    routing = builtin.route('What does "refactoring" mean?')
    assert routing.skill is None
    assert routing.damped_by == "what does … mean"


def test_a_request_that_asks_what_it_means_keeps_its_method(
    builtin: Router, request: pytest.FixtureRequest
) -> None:
    message = "Refactor this module, what does it mean for the tests"
    mark_known_misroute(request, builtin, message)
    assert picked(builtin, message) == "refactor-sur"
