"""The `basic` suite: 40 small agentic tasks a 7–14B model meets every day.

Kinds: `file` (write exactly what was asked), `fix` (a bug, found by the task's own tests,
which must not be edited), `web` (a page valid with its links resolved), `data` (a number
from a CSV file, to be computed, not guessed), `tool` (facts only a loopback page holds,
read with the Fetch tool). Prompts are in French like our first users'; a few in English.
"""

from __future__ import annotations

from loki_desktop.core.evaluation.tasks import (
    AnswerContains,
    AnswerNumber,
    EvalTask,
    FileContains,
    FileEquals,
    HtmlValid,
    Reference,
    TestsPass,
    call,
)

FETCH_TOOL = "mcp_web_fetch"


def _write(path: str, content: str) -> Reference:
    return Reference(((call("write_file", path=path, content=content),),), f"{path} est écrit.")


def _file_tasks() -> list[EvalTask]:
    hello = "Bonjour le monde\n"
    gitignore = "__pycache__/\n*.pyc\n.venv/\n"
    todo_before = "- TODO acheter du pain\n- TODO appeler Marie\n- fait : réserver\n"
    todo_after = "- DONE acheter du pain\n- DONE appeler Marie\n- fait : réserver\n"
    config = '{\n  "port": 8080,\n  "debug": false,\n  "name": "loki"\n}\n'
    util_before = "def foo(x):\n    return x * 2\n\n\nprint(foo(3))\n"
    util_after = "def double(x):\n    return x * 2\n\n\nprint(double(3))\n"
    notes = "# Notes\n\n- première idée\n"
    add_module = "def add(a, b):\n    return a + b\n"
    add_tests = (
        "import unittest\n\nfrom calc import add\n\n\nclass T(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
        "        self.assertEqual(add(-1, 1), 0)\n"
    )
    csv_text = "nom,age\nAlice,31\nBob,27\n"
    return [
        EvalTask(
            "file-hello",
            "file",
            "Crée le fichier hello.txt contenant exactement la ligne « Bonjour le monde ».",
            (FileEquals("hello.txt", hello),),
            _write("hello.txt", hello),
        ),
        EvalTask(
            "file-gitignore",
            "file",
            "Écris un .gitignore pour un projet Python qui ignore __pycache__/, les fichiers "
            ".pyc et le dossier .venv/.",
            (FileContains(".gitignore", ("__pycache__", ".pyc", ".venv")),),
            _write(".gitignore", gitignore),
        ),
        EvalTask(
            "file-replace-todo",
            "file",
            "Dans todo.txt, remplace chaque « TODO » par « DONE », sans rien changer d'autre.",
            (FileEquals("todo.txt", todo_after),),
            Reference(
                (
                    (call("read_file", path="todo.txt"),),
                    (call("write_file", path="todo.txt", content=todo_after),),
                ),
                "C'est fait.",
            ),
            files={"todo.txt": todo_before},
        ),
        EvalTask(
            "file-json-config",
            "file",
            'Create config.json with the keys port = 8080, debug = false and name = "loki".',
            (FileContains("config.json", ('"port": 8080', '"debug": false', '"name": "loki"')),),
            _write("config.json", config),
        ),
        EvalTask(
            "file-rename-function",
            "file",
            "Dans util.py, renomme la fonction foo en double, appels compris.",
            (FileContains("util.py", ("def double(", "double(3)"), absent=("foo",)),),
            Reference(
                (
                    (call("read_file", path="util.py"),),
                    (call("write_file", path="util.py", content=util_after),),
                ),
                "Renommée.",
            ),
            files={"util.py": util_before},
        ),
        EvalTask(
            "file-append-note",
            "file",
            "Ajoute la ligne « - deuxième idée » à la fin de notes.md, sans toucher au reste.",
            (FileEquals("notes.md", notes + "- deuxième idée\n"),),
            Reference(
                (
                    (call("read_file", path="notes.md"),),
                    (call("write_file", path="notes.md", content=notes + "- deuxième idée\n"),),
                ),
                "Ajoutée.",
            ),
            files={"notes.md": notes},
        ),
        EvalTask(
            "file-python-function",
            "file",
            "Écris calc.py avec une fonction add(a, b) qui renvoie la somme ; "
            "test_calc.py la teste déjà.",
            (TestsPass(), FileEquals("test_calc.py", add_tests)),
            _write("calc.py", add_module),
            files={"test_calc.py": add_tests},
        ),
        EvalTask(
            "file-csv-row",
            "file",
            "Ajoute une ligne pour Chloé, 45 ans, à la fin de personnes.csv.",
            (FileEquals("personnes.csv", csv_text + "Chloé,45\n"),),
            Reference(
                (
                    (call("read_file", path="personnes.csv"),),
                    (call("write_file", path="personnes.csv", content=csv_text + "Chloé,45\n"),),
                ),
                "Ajoutée.",
            ),
            files={"personnes.csv": csv_text},
        ),
    ]


def _fix(task_id: str, prompt: str, module: str, buggy: str, fixed: str, tests: str) -> EvalTask:
    test_file = f"test_{module}"
    return EvalTask(
        task_id,
        "fix",
        prompt,
        (TestsPass(), FileEquals(test_file, tests)),
        Reference(
            (
                (call("read_file", path=module), call("read_file", path=test_file)),
                (call("write_file", path=module, content=fixed),),
            ),
            "Corrigé : les tests passent.",
        ),
        files={module: buggy, test_file: tests},
    )


def _test_case(module: str, body: str) -> str:
    name = module.removesuffix(".py")
    return (
        f"import unittest\n\nfrom {name} import *  # noqa: F403\n\n\n"
        f"class T(unittest.TestCase):\n    def test_it(self):\n{body}"
    )


def _fix_tasks() -> list[EvalTask]:
    cases = [
        (
            "fix-off-by-one",
            "Les tests de test_somme.py échouent : corrige somme.py.",
            "somme.py",
            "def somme_jusqua(n):\n    return sum(range(n))\n",
            "def somme_jusqua(n):\n    return sum(range(n + 1))\n",
            "        self.assertEqual(somme_jusqua(3), 6)\n"
            "        self.assertEqual(somme_jusqua(0), 0)\n",
        ),
        (
            "fix-average-empty",
            "moyenne([]) plante au lieu de renvoyer 0 : corrige moyenne.py (test_moyenne.py).",
            "moyenne.py",
            "def moyenne(xs):\n    return sum(xs) / len(xs)\n",
            "def moyenne(xs):\n    return sum(xs) / len(xs) if xs else 0\n",
            "        self.assertEqual(moyenne([]), 0)\n"
            "        self.assertEqual(moyenne([2, 4]), 3)\n",
        ),
        (
            "fix-wrong-operator",
            "The tests in test_prix.py fail: fix prix.py.",
            "prix.py",
            "def prix_ttc(ht, tva=0.2):\n    return round(ht + tva, 2)\n",
            "def prix_ttc(ht, tva=0.2):\n    return round(ht * (1 + tva), 2)\n",
            "        self.assertEqual(prix_ttc(100), 120.0)\n"
            "        self.assertEqual(prix_ttc(10, 0.055), 10.55)\n",
        ),
        (
            "fix-reversed-sort",
            "classement() trie à l'envers : corrige classement.py (test_classement.py).",
            "classement.py",
            "def classement(scores):\n    return sorted(scores, key=lambda s: s[1])\n",
            "def classement(scores):\n"
            "    return sorted(scores, key=lambda s: s[1], reverse=True)\n",
            "        self.assertEqual(classement([('a', 1), ('b', 3)]), [('b', 3), ('a', 1)])\n",
        ),
        (
            "fix-mutable-default",
            "ajoute() garde ses éléments d'un appel à l'autre : corrige panier.py "
            "(test_panier.py).",
            "panier.py",
            "def ajoute(item, panier=[]):\n    panier.append(item)\n    return panier\n",
            "def ajoute(item, panier=None):\n    panier = [] if panier is None else panier\n"
            "    panier.append(item)\n    return panier\n",
            "        self.assertEqual(ajoute('a'), ['a'])\n"
            "        self.assertEqual(ajoute('b'), ['b'])\n",
        ),
        (
            "fix-string-compare",
            "est_majeur('18') renvoie False : corrige age.py, test_age.py dit ce qui est attendu.",
            "age.py",
            "def est_majeur(age):\n    return age == 18 or age > 18\n",
            "def est_majeur(age):\n    return int(age) >= 18\n",
            "        self.assertTrue(est_majeur('18'))\n        self.assertTrue(est_majeur(30))\n"
            "        self.assertFalse(est_majeur('7'))\n",
        ),
        (
            "fix-key-error",
            "compte_mots lève un KeyError : corrige mots.py (test_mots.py).",
            "mots.py",
            "def compte_mots(texte):\n    compte = {}\n    for mot in texte.split():\n"
            "        compte[mot] += 1\n    return compte\n",
            "def compte_mots(texte):\n    compte = {}\n    for mot in texte.split():\n"
            "        compte[mot] = compte.get(mot, 0) + 1\n    return compte\n",
            "        self.assertEqual(compte_mots('a b a'), {'a': 2, 'b': 1})\n",
        ),
        (
            "fix-integer-division",
            "The tests in test_partage.py fail: fix partage.py.",
            "partage.py",
            "def part(total, personnes):\n    return total // personnes\n",
            "def part(total, personnes):\n    return total / personnes\n",
            "        self.assertEqual(part(10, 4), 2.5)\n",
        ),
        (
            "fix-strip",
            "nettoie('  Bonjour  ') ne retire pas les espaces : corrige texte.py (test_texte.py).",
            "texte.py",
            "def nettoie(s):\n    s.strip()\n    return s\n",
            "def nettoie(s):\n    return s.strip()\n",
            "        self.assertEqual(nettoie('  Bonjour  '), 'Bonjour')\n",
        ),
        (
            "fix-leap-year",
            "bissextile(1900) renvoie True : corrige dates.py, test_dates.py le vérifie.",
            "dates.py",
            "def bissextile(an):\n    return an % 4 == 0\n",
            "def bissextile(an):\n    return an % 4 == 0 and (an % 100 != 0 or an % 400 == 0)\n",
            "        self.assertFalse(bissextile(1900))\n"
            "        self.assertTrue(bissextile(2000))\n"
            "        self.assertTrue(bissextile(2024))\n",
        ),
    ]
    return [
        _fix(task_id, prompt, module, buggy, fixed, _test_case(module, body))
        for task_id, prompt, module, buggy, fixed, body in cases
    ]


def _page(title: str, body: str, head: str = "") -> str:
    return (
        f'<!DOCTYPE html>\n<html lang="fr">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title}</title>\n{head}</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _web_tasks() -> list[EvalTask]:
    css_link = '<link rel="stylesheet" href="style.css">\n'
    return [
        EvalTask(
            "web-cv",
            "web",
            "Crée index.html : une page avec le titre h1 « Mon CV » et une feuille de style "
            "style.css (crée-la aussi).",
            (HtmlValid("index.html", ("<h1>Mon CV</h1>", "style.css")),),
            Reference(
                (
                    (
                        call(
                            "write_file",
                            path="index.html",
                            content=_page("CV", "<h1>Mon CV</h1>", css_link),
                        ),
                        call("write_file", path="style.css", content="h1 { color: navy; }\n"),
                    ),
                ),
                "index.html et style.css sont écrits.",
            ),
        ),
        EvalTask(
            "web-contact-form",
            "web",
            "Fais contact.html : un formulaire de contact avec les champs nom, email et message, "
            "chacun avec son label, et un bouton Envoyer.",
            (
                HtmlValid(
                    "contact.html", ("<form", 'name="nom"', 'name="email"', "<textarea", "<label")
                ),
            ),
            _write(
                "contact.html",
                _page(
                    "Contact",
                    '<form>\n<label for="nom">Nom</label><input id="nom" name="nom">\n'
                    '<label for="email">Email</label><input id="email" name="email" type="email">\n'
                    '<label for="message">Message</label><textarea id="message" name="message">'
                    "</textarea>\n<button>Envoyer</button>\n</form>",
                ),
            ),
        ),
        EvalTask(
            "web-fix-link",
            "web",
            "La page index.html pointe vers a-propos.html qui n'existe pas : crée cette page "
            "(un titre h1 « À propos »).",
            (HtmlValid("index.html"), HtmlValid("a-propos.html", ("<h1>À propos</h1>",))),
            _write("a-propos.html", _page("À propos", "<h1>À propos</h1>")),
            files={"index.html": _page("Accueil", '<a href="a-propos.html">À propos</a>')},
        ),
        EvalTask(
            "web-list",
            "web",
            "Create fruits.html with an unordered list of three fruits: pomme, poire, cerise.",
            (HtmlValid("fruits.html", ("<ul>", "pomme", "poire", "cerise")),),
            _write(
                "fruits.html",
                _page("Fruits", "<ul>\n<li>pomme</li>\n<li>poire</li>\n<li>cerise</li>\n</ul>"),
            ),
        ),
        EvalTask(
            "web-script",
            "web",
            "Crée compteur.html avec un bouton qui augmente un compteur affiché, le JavaScript "
            "dans compteur.js.",
            (
                HtmlValid("compteur.html", ("compteur.js", "<button")),
                FileContains("compteur.js", ("addEventListener",)),
            ),
            Reference(
                (
                    (
                        call(
                            "write_file",
                            path="compteur.html",
                            content=_page(
                                "Compteur",
                                '<button id="plus">+1</button> <span id="n">0</span>\n'
                                '<script src="compteur.js"></script>',
                            ),
                        ),
                        call(
                            "write_file",
                            path="compteur.js",
                            content="let n = 0;\ndocument.getElementById('plus')"
                            ".addEventListener('click', () => {\n  n += 1;\n"
                            "  document.getElementById('n').textContent = String(n);\n});\n",
                        ),
                    ),
                ),
                "Écrits.",
            ),
        ),
        EvalTask(
            "web-broken-html",
            "web",
            "accueil.html a une balise mal fermée : corrige-la.",
            (HtmlValid("accueil.html", ("<p>Bienvenue</p>",)),),
            _write("accueil.html", _page("Accueil", "<div><p>Bienvenue</p></div>")),
            files={"accueil.html": _page("Accueil", "<div><p>Bienvenue</div></p>")},
        ),
        EvalTask(
            "web-table",
            "web",
            "Fais tarifs.html avec un tableau de deux offres : Solo à 9 € et Équipe à 29 €.",
            (HtmlValid("tarifs.html", ("<table", "Solo", "Équipe", "29")),),
            _write(
                "tarifs.html",
                _page(
                    "Tarifs",
                    "<table>\n<tr><th>Offre</th><th>Prix</th></tr>\n"
                    "<tr><td>Solo</td><td>9 €</td></tr>\n<tr><td>Équipe</td><td>29 €</td></tr>\n"
                    "</table>",
                ),
            ),
        ),
    ]


SALES = (
    "date,produit,region,quantite,prix\n"
    "2024-01-05,stylo,Nord,10,1.5\n2024-01-09,cahier,Sud,4,3.0\n"
    "2024-02-02,stylo,Sud,7,1.5\n2024-02-14,classeur,Nord,2,6.0\n"
    "2024-02-20,cahier,Nord,5,3.0\n2024-03-03,stylo,Est,12,1.5\n"
    "2024-03-11,classeur,Sud,3,6.0\n2024-03-28,cahier,Est,6,3.0\n"
)
TEMPS = "jour,min,max\nlundi,3,9\nmardi,5,12\nmercredi,-1,6\njeudi,4,15\nvendredi,2,11\n"


def _data(task_id: str, prompt: str, files: dict[str, str], answer: str, value: float) -> EvalTask:
    path = next(iter(files))
    return EvalTask(
        task_id,
        "data",
        prompt,
        (AnswerNumber(value, 0.01),),
        Reference(((call("read_file", path=path),),), answer),
        files=files,
    )


def _data_tasks() -> list[EvalTask]:
    sales = {"ventes.csv": SALES}
    temps = {"temperatures.csv": TEMPS}
    return [
        _data(
            "data-total-quantity",
            "Combien d'articles ont été vendus en tout (ventes.csv) ?",
            sales,
            "49 articles.",
            49,
        ),
        _data(
            "data-revenue",
            "Quel est le chiffre d'affaires total de ventes.csv (quantité × prix) ?",
            sales,
            "Le total est de 118,50 €.",
            118.5,
        ),
        _data(
            "data-stylos", "How many pens (stylo) were sold in ventes.csv?", sales, "29 pens.", 29
        ),
        _data(
            "data-north",
            "Quel chiffre d'affaires la région Nord a-t-elle fait ?",
            sales,
            "La région Nord : 42 €.",
            42,
        ),
        _data(
            "data-february",
            "Combien de ventes (lignes) en février dans ventes.csv ?",
            sales,
            "3 ventes en février.",
            3,
        ),
        _data(
            "data-average-price",
            "Quel est le prix moyen des lignes de ventes.csv ?",
            sales,
            "Le prix moyen est 3,1875 €.",
            3.1875,
        ),
        _data(
            "data-hottest",
            "Quelle est la température maximale de la semaine (temperatures.csv) ?",
            temps,
            "15 degrés, jeudi.",
            15,
        ),
        _data(
            "data-mean-min",
            "Moyenne des minimales de temperatures.csv ?",
            temps,
            "2,6 degrés.",
            2.6,
        ),
        _data(
            "data-cahier-revenue",
            "Combien ont rapporté les cahiers dans ventes.csv ?",
            sales,
            "Les cahiers : 45 €.",
            45,
        ),
        EvalTask(
            "data-coldest-day",
            "data",
            "Quel jour a eu la température minimale la plus basse (temperatures.csv) ?",
            (AnswerContains(("mercredi",)),),
            Reference(((call("read_file", path="temperatures.csv"),),), "Mercredi, avec -1 °C."),
            files=temps,
        ),
        _data(
            "data-amplitude",
            "What is the largest daily range (max - min) in temperatures.csv?",
            temps,
            "11 degrees, on Thursday.",
            11,
        ),
    ]


def _tool_tasks() -> list[EvalTask]:
    page = (
        "<!DOCTYPE html><html lang='fr'><head><title>Intranet</title></head><body>"
        "<h1>Informations pratiques</h1><p>Le code du portail est ORCHIDEE-4512.</p>"
        "<p>La cantine ouvre à 11 h 45 et ferme à 14 h 10.</p>"
        "<p>Le parking compte 87 places.</p></body></html>"
    )

    def fetch_task(
        task_id: str, prompt: str, grader: AnswerContains | AnswerNumber, answer: str
    ) -> EvalTask:
        return EvalTask(
            task_id,
            "tool",
            prompt,
            (grader,),
            Reference(((call(FETCH_TOOL, url="{url}", raw=True),),), answer),
            page=page,
        )

    return [
        fetch_task(
            "tool-portal-code",
            "Lis la page {url} et donne-moi le code du portail.",
            AnswerContains(("ORCHIDEE-4512",)),
            "Le code est ORCHIDEE-4512.",
        ),
        fetch_task(
            "tool-canteen",
            "D'après {url}, à quelle heure ferme la cantine ?",
            AnswerContains(("14 h 10",)),
            "Elle ferme à 14 h 10.",
        ),
        fetch_task(
            "tool-parking",
            "How many parking spaces does {url} mention?",
            AnswerNumber(87),
            "87 spaces.",
        ),
        fetch_task(
            "tool-summary",
            "Résume en une phrase la page {url} en citant le code du portail.",
            AnswerContains(("ORCHIDEE-4512",)),
            "Page pratique : portail ORCHIDEE-4512, cantine 11 h 45 – 14 h 10.",
        ),
    ]


def basic_suite() -> list[EvalTask]:
    return [*_file_tasks(), *_fix_tasks(), *_web_tasks(), *_data_tasks(), *_tool_tasks()]


def _intelligence() -> list[EvalTask]:
    from loki_desktop.core.evaluation.suite_intelligence import intelligence_suite

    return intelligence_suite()


SUITES = {"basic": basic_suite, "intelligence": _intelligence}
