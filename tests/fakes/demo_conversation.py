"""A scripted conversation for the fake Ollama server: the window tests and the screenshots.

The question below picks the "analyse-donnees" skill; the model then reads a CSV file,
writes a script with an undefined name (the automatic check fails), fixes it (the check
passes) and answers in Markdown. A question about tuples gets a short streamed answer
(the quick prompt). The reply depends only on the request, so any number of runs work:

    server.script(*[reply_for] * 50)
"""

from __future__ import annotations

from typing import Any

from tests.fakes.ollama_server import Reply

QUESTION = "Écris un script Python qui calcule la moyenne et la médiane des ventes dans ventes.csv"
APPROVAL_QUESTION = "Lance le script pour voir ce qu'il affiche"
APPROVAL_COMMAND = "python3 stats_ventes.py"
APPROVAL_REFUSED = "Entendu, je ne le lance pas : la commande est `python3 stats_ventes.py`."
QUICK_QUESTION = "Quelle est la différence entre une liste et un tuple en Python ?"

SALES_CSV = """mois,ventes
janvier,1200
février,980
mars,1430
avril,1610
mai,1275
juin,1890
"""

SCRIPT_WITH_BUG = """import csv


def lire_ventes(chemin):
    with open(chemin, newline="", encoding="utf-8") as fichier:
        return [int(ligne["ventes"]) for ligne in csv.DictReader(fichier)]


ventes = lire_ventes("ventes.csv")
print("Moyenne :", statistics.mean(ventes))
print("Médiane :", statistics.median(ventes))
"""

SCRIPT_FIXED = """import csv
import statistics


def lire_ventes(chemin):
    with open(chemin, newline="", encoding="utf-8") as fichier:
        return [int(ligne["ventes"]) for ligne in csv.DictReader(fichier)]


if __name__ == "__main__":
    ventes = lire_ventes("ventes.csv")
    print(f"Moyenne : {statistics.mean(ventes):.1f}")
    print(f"Médiane : {statistics.median(ventes):.1f}")
"""

FINAL_ANSWER = """## Le script est prêt

J'ai écrit **`stats_ventes.py`** : il lit `ventes.csv` avec le module `csv`, puis calcule \
les deux valeurs avec `statistics`. La première version oubliait `import statistics` ; \
la vérification l'a signalé et c'est corrigé.

```python
import statistics

ventes = lire_ventes("ventes.csv")
print(f"Moyenne : {statistics.mean(ventes):.1f}")
print(f"Médiane : {statistics.median(ventes):.1f}")
```

| Mesure  | Valeur  |
|---------|--------:|
| Moyenne | 1 397,5 |
| Médiane | 1 352,5 |

Pour l'exécuter :

1. ouvrez un terminal dans le dossier de travail ;
2. lancez `python stats_ventes.py`.

> Les chiffres viennent de `ventes.csv` : modifiez-le, relancez le script, ils suivent.
"""

QUICK_ANSWER = """Une **liste** se modifie, un **tuple** non :

- `liste = [1, 2, 3]` : on peut ajouter, retirer, remplacer (`liste.append(4)`) ;
- `point = (3, 4)` : fixé une fois créé, donc utilisable comme clé de dictionnaire.

Prenez un tuple pour un enregistrement de taille fixe, une liste pour une collection \
qui grandit.
"""


def words(text: str) -> list[str]:
    """The text as streamed tokens (a word and its trailing space each)."""
    tokens: list[str] = []
    for line in text.splitlines(keepends=True):
        parts = line.split(" ")
        tokens += [part + " " for part in parts[:-1]] + [parts[-1]]
    return [token for token in tokens if token]


def reply_for(body: dict[str, Any], token_delay: float = 0.004) -> Reply:
    """The next step of the scripted conversation, read from the request itself."""
    messages = body.get("messages", [])
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    question = str(messages[last_user].get("content", "")) if last_user >= 0 else ""
    if "tuple" in question:
        return Reply.text(*words(QUICK_ANSWER), token_delay=token_delay)
    tools_done = sum(1 for m in messages[last_user + 1 :] if m.get("role") == "tool")
    if question == APPROVAL_QUESTION:
        if tools_done == 0:
            return Reply.tool("run_shell", {"command": APPROVAL_COMMAND})
        return Reply.text(*words(APPROVAL_REFUSED), token_delay=token_delay)
    if tools_done == 0:
        return Reply.tool("read_file", {"path": "ventes.csv"})
    if tools_done == 1:
        return Reply.tool("write_file", {"path": "stats_ventes.py", "content": SCRIPT_WITH_BUG})
    if tools_done == 2:
        return Reply.tool("write_file", {"path": "stats_ventes.py", "content": SCRIPT_FIXED})
    return Reply.text(*words(FINAL_ANSWER), token_delay=token_delay)
