"""`loki-desktop eval --suite intelligence`: memory and workspace tasks in every harness
variant, replayed — the oracle passes each task, the saboteur fails each one."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.cli_runner import run_cli

VARIANTS = ("on", "off", "memory-off", "plan-off", "review-off")


def results(events: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    (summary,) = [e for e in events if e["type"] == "summary"]
    listed = summary["results"]
    assert isinstance(listed, list)
    return {str(r["harness"]): r for r in listed}


def harness_args() -> list[str]:
    return [arg for variant in VARIANTS for arg in ("--harness", variant)]


def test_the_oracle_passes_every_intelligence_task_in_every_variant(loki_home: Path) -> None:
    run = run_cli(
        "eval",
        "--suite",
        "intelligence",
        "--replay",
        "oracle",
        *harness_args(),
        "--json",
        home=loki_home,
        timeout=900,
    )
    assert run.code == 0, run.stderr
    tasks = run.of_type("task")
    assert len(tasks) == 16 * len(VARIANTS)
    assert {t["kind"] for t in tasks} == {"memory", "workspace"}
    failed = [(t["harness"], t["task"], t["reasons"]) for t in tasks if not t["passed"]]
    assert not failed
    assert {h: r["passed"] for h, r in results(run.events).items()} == dict.fromkeys(VARIANTS, 16)


def test_the_saboteur_fails_every_intelligence_task(loki_home: Path) -> None:
    run = run_cli(
        "eval",
        "--suite",
        "intelligence",
        "--replay",
        "sabotage",
        "--harness",
        "on",
        "--harness",
        "off",
        "--json",
        home=loki_home,
        timeout=900,
    )
    assert run.code == 0, run.stderr
    assert [t["task"] for t in run.of_type("task") if t["passed"]] == []
    assert {h: r["total"] for h, r in results(run.events).items()} == {"on": 16, "off": 16}


def test_an_unknown_variant_is_refused(loki_home: Path) -> None:
    run = run_cli("eval", "--replay", "oracle", "--harness", "skills-off", home=loki_home)
    assert run.code == 2
    assert "skills-off" in run.stderr
