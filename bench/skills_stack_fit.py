"""Skills: fit the stacked decision's twelve numbers (core.skills.stack), leave-one-set-out.

    .venv/bin/python -m bench.skills_stack_fit features /tmp/stack.json   # in the venv
    python3 bench/skills_stack_fit.py fit /tmp/stack.json                  # any Python with numpy

The first step computes, for every labelled request in skills/examples, what the router
weighs: the rules' points per skill and their pick (rules alone), the answer cue, the help
words, and each skill's log-odds from an opinion that never learned the request's own file;
for each routing set held out, the same again with that set left out of every opinion too.
The second fits the twelve numbers (a conditional logistic regression: POINT, PICKED,
ODDS, NONE_CUE, NONE_HELP, NONE_NOTHING and a bias per label) fold by fold, prints each
routing set held out at several NONE_MARGIN values, then the fit on every set: the numbers
to copy into core/skills/stack.py. numpy is not a dependency of the app: the fit runs in
any Python that has it (the venv's tests never call it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

MARGINS = (2.0, 2.5, 3.0, 3.5, 4.0)


def features(path: Path) -> None:
    from bench.skills_loso import ROUTING_SETS
    from loki_desktop.core.skills.examples import ExampleModel, asks_for_help
    from loki_desktop.core.skills.loader import load_builtin_skills, read_examples
    from loki_desktop.core.skills.router import Router

    skills = load_builtin_skills().skills
    rules = Router(skills)  # no examples: the rules alone
    rows: list[dict[str, Any]] = []
    for example in read_examples():
        routing = rules.route(example.message)
        rows.append(
            {
                "set": example.file,
                "label": example.label,
                "lang": example.language or "?",
                "points": {score.skill.name: score.points for score in routing.scores},
                "pick": routing.skill.name if routing.skill else None,
                "cue": routing.damped_by is not None,
                "help": asks_for_help(example.message),
            }
        )
    messages = [example.message for example in read_examples()]
    sets = sorted({row["set"] for row in rows})

    def odds(left_out: set[str], target: str) -> dict[str, dict[str, float]]:
        model = ExampleModel(
            (row["label"], message)
            for row, message in zip(rows, messages, strict=True)
            if row["set"] not in left_out
        )
        return {
            str(index): model.log_odds(message)
            for index, (row, message) in enumerate(zip(rows, messages, strict=True))
            if row["set"] == target
        }

    table: dict[str, dict[str, dict[str, float]]] = {}
    for name in sets:
        table[f"|{name}"] = odds({name}, name)
        for held in ROUTING_SETS:
            if held != name:
                table[f"{held}|{name}"] = odds({held, name}, name)
    names = [skill.name for skill in skills]
    document = {"rows": rows, "names": names, "odds": table, "held": list(ROUTING_SETS)}
    path.write_text(json.dumps(document), encoding="utf-8")


def fit(path: Path) -> None:
    import numpy as np

    document = json.loads(path.read_text(encoding="utf-8"))
    rows, names, table, held = (document[key] for key in ("rows", "names", "odds", "held"))
    labels = ["none", *names]
    y = np.array([labels.index(row["label"]) for row in rows])
    of_set = np.array([row["set"] for row in rows])
    language = np.array([row["lang"] for row in rows])

    def tensor(indices: Any, key_of: Any) -> Any:
        found = np.zeros((len(indices), len(labels), 6))
        for j, i in enumerate(indices):
            row = rows[i]
            odds = table[key_of(row["set"])][str(i)]
            for k, name in enumerate(names, 1):
                found[j, k, 0] = min(row["points"].get(name, 0), 9)
                found[j, k, 1] = row["pick"] == name
                found[j, k, 2] = max(-30.0, min(30.0, odds.get(name, 0.0)))
            found[j, 0, 3:] = (row["cue"], row["help"], row["pick"] is None)
        return found

    def train(features: Any, labels_of: Any, iterations: int = 3000) -> tuple[Any, Any]:
        n, k, f = features.shape
        theta, bias, onehot = np.zeros(f), np.zeros(k), np.eye(k)[labels_of]
        moment, second = np.zeros(f + k), np.zeros(f + k)
        for t in range(1, iterations + 1):  # Adam on the mean log-loss, a little L2
            z = features @ theta + bias
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            g = (p - onehot) / n
            grad = np.concatenate([np.einsum("nk,nkf->f", g, features) + 1e-4 * theta, g.sum(0)])
            moment = 0.9 * moment + 0.1 * grad
            second = 0.999 * second + 0.001 * grad * grad
            step = 0.05 * (moment / (1 - 0.9**t)) / (np.sqrt(second / (1 - 0.999**t)) + 1e-8)
            theta, bias = theta - step[:f], bias - step[f:]
        return theta, bias

    def others(left_out: str | None) -> tuple[Any, Any]:
        indices = np.where(of_set != left_out)[0]
        prefix = left_out or ""
        return tensor(indices, lambda name: f"{prefix}|{name}"), indices

    predicted = {margin: np.zeros(len(rows), int) for margin in MARGINS}
    for name in held:
        features, indices = others(name)
        theta, bias = train(features, y[indices])
        test = np.where(of_set == name)[0]
        z = tensor(test, lambda _set, held_out=name: f"|{held_out}") @ theta + bias
        for margin in MARGINS:
            predicted[margin][test] = (z + np.eye(len(labels))[0] * margin).argmax(1)
        print(name, "held out: theta", np.round(theta, 3), "bias", np.round(bias, 2))

    def accuracy(chosen: Any, got: Any) -> str:
        scores = []
        for lang in ("fr", "en", "?"):
            mask = chosen & (language == lang)
            if np.any(mask):
                scores.append(f"{lang} {np.mean(got[mask] == y[mask]):.1%}")
        positives = int(np.sum(chosen & (y == 0) & (got != 0)))
        return " ".join(scores) + f" FP {positives}"

    for margin in MARGINS:
        parts = [f"{name}: {accuracy(of_set == name, predicted[margin])}" for name in held]
        parts.append(f"all: {accuracy(np.isin(of_set, held), predicted[margin])}")
        print(f"margin {margin}: " + " | ".join(parts))
    features, indices = others(None)
    theta, bias = train(features, y[indices])
    print("every set: POINT, PICKED, ODDS, NONE_CUE, NONE_HELP, NONE_NOTHING =", np.round(theta, 3))
    print("biases:", dict(zip(labels, np.round(bias, 3).tolist(), strict=True)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("features", "fit"))
    parser.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    if args.step == "features":
        features(args.path)
    else:
        fit(args.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
