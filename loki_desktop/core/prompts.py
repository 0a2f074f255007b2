"""The text the model reads from the harness: the main system prompt and the check follow-up."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from loki_desktop.core.events import CheckReport

SYSTEM_PROMPT = """\
You are Loki, a careful assistant running on the user's own computer.
Answer in the user's language. Be concise and concrete; use Markdown.
{workspace_part}
Rules for tools:
- Call a tool only when it helps answer; never invent a tool's result.
- Read a file before you change it. Prefer edit_file for small changes.
- Paths are relative to the workspace folder.
- When a tool returns an error, read it, adapt, and do not repeat the same call.
"""

WORKSPACE_PART = """\
The workspace folder is {root}. Your file tools work only inside it.
"""

NO_WORKSPACE_PART = """\
No workspace folder is open, so you have no file tools.
"""

NO_TOOLS_PART = """\
The user works in the folder {root}, but you have no tools in this conversation: when a \
file must be read or changed, say so and show the content for the user to use.
"""


def system_prompt(workspace_root: str | None, tool_names: Sequence[str]) -> str:
    if workspace_root and tool_names:
        part = WORKSPACE_PART.format(root=workspace_root)
    elif workspace_root:  # tools turned off for this model (Settings.tool_modes)
        part = NO_TOOLS_PART.format(root=workspace_root)
    else:
        part = NO_WORKSPACE_PART
    return SYSTEM_PROMPT.format(workspace_part=part)


def check_feedback(report: CheckReport) -> str:
    """What the model reads after a write, appended to the tool result."""
    if report.skipped and not report.problems:
        return f"\n\nAutomatic check of {report.path}: skipped ({report.skipped})."
    if report.ok:
        return f"\n\nAutomatic check of {report.path}: no problems found."
    return (
        f"\n\nAutomatic check of {report.path} found {len(report.problems)} problem(s):\n"
        + "\n".join(_problem_lines([report]))
        + "\nFix them."
    )


def check_followup(failing: Iterable[CheckReport]) -> str:
    """The one follow-up message sent when the model stopped with failing files."""
    return (
        "The automatic check still finds problems in the files you wrote:\n"
        + "\n".join(_problem_lines(failing))
        + "\nFix these problems now (read the file first if needed), "
        "then give your final answer."
    )


def _problem_lines(reports: Iterable[CheckReport]) -> list[str]:
    return [problem.located(report.path) for report in reports for problem in report.problems]
