"""Messages that want an answer, not a method: who, what year, where to report; past tenses."""

from __future__ import annotations

import pytest

from loki_desktop.core.skills.router import DAMPING, DEVICE_DAMPING, Router
from tests.core.skills.routers import builtin_router, mark_known_misroute


@pytest.fixture(scope="module", params=["rules", "shipped"])
def builtin(request: pytest.FixtureRequest) -> Router:
    """Each pick checked on the rules alone and on the router a turn uses (stacked)."""
    return builtin_router(request.param)


def picked(router: Router, message: str) -> str:
    chosen = router.pick(message)
    return chosen.name if chosen else "none"


@pytest.mark.parametrize(
    ("message", "cue"),
    [
        ("Qui a écrit le rapport annuel de l'ONU ?", "qui"),
        ("Bonjour. Qui a rédigé la lettre de Guy Môquet ?", "qui"),
        ("Who wrote the report on climate change?", "who"),
        ("J'ai trouvé un bug dans un jeu, à qui je dois le signaler ?", "a qui"),
        ("How do I report a bug in Firefox?", "how do i report"),
        ("Il y a une erreur dans l'annuaire, comment la signaler ?", "comment la signaler"),
        ("What year was the first website put online?", "what year"),
        ("Comment on dit « feuille de calcul » en espagnol ?", "comment on dit"),
    ],
)
def test_questions_for_a_person_a_date_or_a_place_to_report_get_no_method(
    builtin: Router, message: str, cue: str
) -> None:
    routing = builtin.route(message)
    assert routing.skill is None
    assert routing.damped_by == cue
    assert routing.penalty == DAMPING
    # the words are still read: the cue only lowers them, so --explain can say why
    assert routing.scores


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # a relative "qui" is no question
        ("La fonction qui calcule la TVA plante avec une KeyError", "debogage-systematique"),
        # asking who can help is asking for help
        ("Qui peut m'aider à corriger ce bug ?", "debogage-systematique"),
        ("Who can fix this TypeError in my script?", "debogage-systematique"),
        # the user's own people are their data
        ("Who are our top 10 customers by revenue this year?", "analyse-donnees"),
        # a bug to fix, not to report
        ("Il y a un bug dans mon jeu, corrige-le", "debogage-systematique"),
    ],
)
def test_requests_that_merely_contain_those_words_keep_their_method(
    builtin: Router, message: str, expected: str, request: pytest.FixtureRequest
) -> None:
    mark_known_misroute(request, builtin, message)
    assert picked(builtin, message) == expected


def test_a_french_passe_compose_with_a_makes_no_pair(builtin: Router) -> None:
    # "a créé" tells what someone did; "à créer" (accents gone: "a creer") asks for it
    assert picked(builtin, "Mon frère a créé un site pour son club de foot") == "none"
    assert picked(builtin, "Aide-moi à créer un site pour mon club de foot") == "creation-web"
    # in English "a" is an article, never an auxiliary
    assert picked(builtin, "Extract the HTTP calls into a separate client class") == "refactor-sur"


def test_english_need_is_no_past_tense(builtin: Router) -> None:
    assert picked(builtin, "I need a complaint letter to my bank") == "redaction-structuree"


def test_an_action_told_of_someone_else_is_no_request(builtin: Router) -> None:
    assert picked(builtin, "My sister writes reports for a living") == "none"
    assert picked(builtin, "Ma soeur rédige des rapports pour son travail") == "none"
    assert picked(builtin, "Il crée des sites pour les artisans") == "none"
    # the same action asked for, and a program's symptom after a possessive
    assert picked(builtin, "Rédige un rapport pour ma soeur") == "redaction-structuree"
    assert (
        picked(builtin, "Pourquoi mon programme renvoie None au lieu de la liste ?")
        == "debogage-systematique"
    )


def test_a_device_s_own_trouble_needs_more_than_a_bug_phrase(builtin: Router) -> None:
    routing = builtin.route("My phone keeps crashing since the update, should I switch brands?")
    assert routing.skill is None
    assert routing.damped_by == "my phone"
    assert routing.penalty == DEVICE_DAMPING
    assert picked(builtin, "Mon ordinateur est lent depuis la mise à jour") == "none"
    assert picked(builtin, "The hotel wifi doesn't work, what should I do?") == "none"
    # a program's trouble, or the device named later, is still a bug to debug
    assert picked(builtin, "Mon appli téléphone plante au démarrage") == "debogage-systematique"
    assert picked(builtin, "L'appli plante quand je tourne mon téléphone") == (
        "debogage-systematique"
    )


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # operating a file or a program is the tools' job...
        ("Ouvre le fichier ventes.csv", "none"),
        ("Run the backup script", "none"),
        # ...unless the request goes on
        ("Ouvre ventes.csv et calcule la moyenne des ventes par mois", "analyse-donnees"),
        # a product to recommend is an answer
        ("Quel est le meilleur logiciel pour faire un site sans coder ?", "none"),
        ("What's the best tool to build a website without coding?", "none"),
        # "what makes" states; "make" asks
        ("What makes a website accessible?", "none"),
        ("Qu'est-ce qui rend un site web accessible ?", "none"),
        ("Fais une page qui affiche l'heure en direct", "creation-web"),
        ("Make a website for my tennis club", "creation-web"),
        ("Make a page that adds items to a cart", "creation-web"),
        # an action word pattern in the past tells, like a pair
        ("Mon équipe a refactorisé tout le backend le mois dernier", "none"),
        ("My team refactored the whole backend last month", "none"),
        ("Refactorise le backend sans changer son comportement", "refactor-sur"),
    ],
)
def test_commands_recommendations_and_statements_get_no_method(
    builtin: Router, message: str, expected: str
) -> None:
    assert picked(builtin, message) == expected
