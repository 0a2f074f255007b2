"""The bench machinery: the table, the runner, the window probe and the figures each module
reports. No timing is asserted here: the numbers live in `make bench`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench import chat, checks, diff_card, skills_loso, startup
from bench.__main__ import MODULES
from bench.figures import Figure, render_table
from loki_desktop.core.skills.examples import features
from tests.conftest import PYTHON, REPO, cli_env
from tests.fakes.ollama_server import FakeOllama


def _run_module(
    tmp_path: Path, *args: str, timeout: float = 120, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """`python -m ARGS` from the repository, with its own Loki home, its output captured."""
    return subprocess.run(
        [PYTHON, "-m", *args],
        cwd=REPO,
        env=cli_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
    )


def _row(table: str, name: str) -> list[str]:
    line = next(line for line in table.splitlines() if f"| {name} " in line)
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_the_table_marks_each_figure_against_its_budget() -> None:
    table = render_table(
        [
            Figure("A", "within", 4.0, "ms", 5.0),
            Figure("A", "over", 6.0, "ms", 5.0, note="why it is over"),
            Figure("A", "no budget", 1234.7, "ms", None),
            Figure("B", "at least", 0.9, "x", 1.0, lower_is_better=False),
        ]
    )
    assert _row(table, "within")[2:5] == ["4.00 ms", "<= 5.00 ms", "yes"]
    assert _row(table, "over")[4:] == ["NO", "1", "why it is over"]
    assert _row(table, "no budget")[2:5] == ["1235 ms", "-", "-"]
    assert _row(table, "at least")[3:5] == [">= 1.00 x", "NO"]


def test_a_figure_in_json_says_whether_it_met_its_budget() -> None:
    data = Figure("A", "over", 6.0, "ms", 5.0).to_json()
    assert data["met"] is False
    assert Figure("A", "info", 6.0, "ms", None).to_json()["met"] is None


def _budgets(figures: list[Figure]) -> dict[str, float]:
    return {f.name: f.budget for f in figures if f.budget is not None}


def test_start_and_memory_figures_carry_the_issue_budgets() -> None:
    app = [startup.AppRun(0.2, 0.4, 130.0, 0.01, 3.0) for _ in range(3)]
    bare = [startup.BareRun(0.1, 60.0) for _ in range(3)]
    figures = startup._figures(bare, app, app[:2], [0.1] * 3, app)
    budgets = _budgets(figures)
    assert budgets["Loki / bare PySide6 window"] == 2.5
    assert budgets["resident memory, window open and idle"] == 120.0
    assert budgets["Loki ready: models listed"] == 500.0
    assert budgets["idle CPU, no workspace"] == 0.5
    ratio = next(f for f in figures if f.name == "Loki / bare PySide6 window")
    assert ratio.value == pytest.approx(2.0)


def test_streaming_and_history_figures_carry_the_issue_budgets() -> None:
    stream = {
        "max_gap_ms": 20.0,
        "p99_gap_ms": 9.0,
        "rate": 199.0,
        "first_us": 100.0,
        "last_us": 160.0,
        "render_first_us": 40.0,
        "render_last_us": 41.0,
        "renders": 600,
    }
    figures = chat._figures({"stream": stream, "open_ms": [90.0, 50.0, 60.0], "widgets": 40})
    budgets = _budgets(figures)
    assert budgets[f"{chat.TOKENS:,} tokens at {chat.RATE}/s: longest event-loop stall"] == 50.0
    assert budgets["cost per token, last / first 1,000"] == 1.5
    ratio = next(f for f in figures if f.name == "cost per token, last / first 1,000")
    assert ratio.value == pytest.approx(1.6)
    assert ratio.met is False
    history = next(f for f in figures if f.budget == 300.0)
    assert history.value == 60.0  # the median of the opens


def test_the_checks_file_has_the_lines_it_claims_and_one_undefined_name() -> None:
    source = checks.python_source(5_000)
    assert len(source.splitlines()) == 5_000
    compile(source, "big_module.py", "exec")  # valid syntax: only the undefined name is wrong
    assert source.rstrip().endswith("print(undefined_total)")


def test_the_typescript_file_has_the_lines_it_claims_and_one_syntax_error() -> None:
    from loki_desktop.core.checks.syntax_tree import syntax_problems

    source = checks.typescript_source(5_000)

    assert len(source.splitlines()) == 5_000
    problems = syntax_problems("typescript", source)
    assert [(p.line, p.message) for p in problems] == [
        (5_000, "erreur de syntaxe : « ) » manquant")
    ]


def test_the_runner_measures_a_module_and_writes_its_table(tmp_path: Path) -> None:
    done = _run_module(tmp_path, "bench", "--only", "skills", "--output", str(tmp_path))
    assert "| Skills | routing one message" in done.stdout
    payload = json.loads((tmp_path / "latest.json").read_text())
    routing = next(f for f in payload["figures"] if f["name"] == "routing one message")
    assert routing["budget"] == 100.0
    assert routing["met"] in (True, False)
    assert payload["failed_modules"] == []
    assert "- Machine: " in (tmp_path / "latest.md").read_text()


def test_the_runner_refuses_an_unknown_module(tmp_path: Path) -> None:
    done = _run_module(
        tmp_path, "bench", "--only", "nope", "--output", str(tmp_path), timeout=60, check=False
    )
    assert done.returncode == 2
    assert "unknown module(s): bench.nope" in done.stderr
    assert len(MODULES) == len(set(MODULES))


@pytest.mark.parametrize("mode", ["bare", "app"])
def test_the_window_probe_reports_the_first_frame(mode: str, tmp_path: Path) -> None:
    """The Start figure depends on it: the probe must still find the app's main window."""
    home = tmp_path / "home"
    home.mkdir()
    with FakeOllama() as ollama:
        (home / "settings.json").write_text(
            json.dumps({"host": ollama.url, "model": "qwen2.5-coder:7b"})
        )
        child, _started = startup._spawn(mode, home)
        try:
            wanted = {"SHOWN", "READY"} if mode == "app" else {"SHOWN"}
            seen = startup._wait_for(child, wanted, home)
        finally:
            startup._end(child)
    assert set(seen) == wanted
    assert child.returncode == (0 if mode == "app" else -15)  # the app closes cleanly


def test_the_diff_card_figures_carry_the_issue_budget() -> None:
    """The child renders real cards (offscreen); only the figures' shape is checked here."""
    figures = diff_card.measure()
    budgets = _budgets(figures)
    assert budgets["1,000-line diff card renders (folded to 40 lines)"] == 50.0
    first = figures[0]
    assert first.note.startswith("1,001 diff lines")
    assert len(first.samples) == diff_card.RUNS
    assert all(f.value > 0 for f in figures)


def test_the_skills_score_command_scores_any_tsv_per_language(tmp_path: Path) -> None:
    """`python -m bench.skills_score PATH.tsv` is how a new blind set is scored."""
    corpus = tmp_path / "blind.tsv"
    corpus.write_text(
        "# a comment\n"
        "debogage-systematique\tfr\tMon script plante avec une KeyError\n"
        "redaction-structuree\tfr\tQuelle heure est-il ?\n"
        "none\ten\tThere is a bug in my script, fix it\n"
        "none\ten\tHow far is the Moon?\n"
        "creation-web\ten\tFix the TypeError in parse.py\n",
        encoding="utf-8",
    )
    done = _run_module(tmp_path, "bench.skills_score", str(corpus))
    lines = done.stdout.splitlines()
    assert lines[0] == (
        f"{corpus}: en 1/3 = 33.3%, fr 1/2 = 50.0%; false positives 1, missed 1, wrong skill 1"
    )
    assert lines[1:] == [
        "  false positives:",
        "    4 [en] none -> debogage-systematique: There is a bug in my script, fix it",
        "  missed:",
        "    3 [fr] redaction-structuree -> none: Quelle heure est-il ?",
        "  wrong skill:",
        "    6 [en] creation-web -> debogage-systematique: Fix the TypeError in parse.py",
    ]


def test_leave_one_set_out_never_learns_the_set_it_holds_out(tmp_path: Path) -> None:
    """`python -m bench.skills_loso`: each routing set and each file given is held out in turn,
    and the opinion that routes it learned from every other set but never from it."""
    first, second = tmp_path / "first.tsv", tmp_path / "second.tsv"
    first.write_text("analyse-donnees\tfr\tzorglubifie les ventes du trimestre\n", "utf-8")
    second.write_text("creation-web\ten\tmake a blorptastic landing page\n", "utf-8")
    sets, held = skills_loso.labelled_sets([first, second])
    assert held[-2:] == ["first.tsv", "second.tsv"]
    assert {"fresh4.tsv", "dev4.tsv"} <= set(held)
    # the routing sets live in skills/examples now: held out in turn, the others never
    assert held[:-2] == list(skills_loso.ROUTING_SETS)
    assert "everyday.tsv" in sets
    assert "everyday.tsv" not in held
    zorglub, blorp = features("zorglubifie"), features("blorptastic")
    without_first = skills_loso.learned_without(sets, "first.tsv")
    assert not zorglub & without_first.vocabulary
    assert blorp <= without_first.vocabulary
    without_second = skills_loso.learned_without(sets, "second.tsv")
    assert zorglub <= without_second.vocabulary
    assert not blorp & without_second.vocabulary


def test_leave_one_set_out_reports_each_set_and_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = tmp_path / "extra.tsv"
    extra.write_text(
        "debogage-systematique\tfr\tMon script plante avec une KeyError\n"
        "none\ten\tHow far is the Moon?\n",
        "utf-8",
    )
    assert skills_loso.main([str(extra)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("extra.tsv (2 requests: 1 en, 1 fr; 1 need no method)")
    assert lines[at + 1].endswith(
        "en 1/1 = 100.0%, fr 1/1 = 100.0%; false positives 0, missed 0, wrong skill 0"
    )
    assert lines[at + 1].startswith("  rules alone:")
    assert lines[at + 2].startswith("  stacked, never learned from it:   en 1/1 = 100.0%")
    assert any(line.startswith("fresh4.tsv (251 requests") for line in lines)
    assert lines[-3].startswith("all held-out sets (")
