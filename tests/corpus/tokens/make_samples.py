"""Builds samples.json: texts of the kinds a request carries, from files this repository owns.

Run from the repository root, then count them with the real tokenizers (see README.md):
    python tests/corpus/tokens/make_samples.py
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from loki_desktop.core.ports import ToolSpec
from loki_desktop.core.prompts import system_prompt
from loki_desktop.core.slim import slim_spec

REPO = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent


def chunks(text: str, size: int, count: int) -> list[str]:
    step = max(size, (len(text) - size) // max(1, count - 1))
    return [text[i : i + size] for i in range(0, max(1, len(text) - size), step)][:count]


def main() -> None:
    samples: list[dict[str, str]] = []

    def add(kind: str, texts: list[str]) -> None:
        samples.extend({"kind": kind, "text": t} for t in texts if t.strip())

    add("system_prompt", [system_prompt("/home/user/projet", ["read_file"])])
    for skill in sorted((REPO / "skills").glob("*.md")):
        add("french_markdown", chunks(skill.read_text(encoding="utf-8"), 1500, 2))
    add("english_markdown", chunks((REPO / "README.md").read_text(encoding="utf-8"), 1500, 8))
    for name in ("agent.py", "slim.py", "tokens.py", "llm/ollama.py", "tools/native.py"):
        source = (REPO / "loki_desktop" / "core" / name).read_text(encoding="utf-8")
        add("python", chunks(source, 2000, 2))
    for server in sorted((REPO / "tests" / "corpus" / "schemas").glob("*.json")):
        tools = json.loads(server.read_text(encoding="utf-8"))
        specs = [ToolSpec(t["name"], t["description"], t["inputSchema"]) for t in tools]
        wire = [json.dumps(slim_spec(s).to_ollama(), separators=(",", ":")) for s in specs]
        add("tool_json", ["".join(wire[i : i + 4]) for i in range(0, len(wire), 4)][:4])
    log = subprocess.run(
        ["git", "log", "--stat", "-n", "6"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    add("tool_output", chunks(log, 1500, 2))
    listing = "\n".join(
        f"{'d' if p.is_dir() else '-'} {p.stat().st_size:>8} {p.relative_to(REPO).as_posix()}"
        for p in sorted((REPO / "loki_desktop").rglob("*"))
        if "__pycache__" not in p.parts
    )
    add("tool_output", chunks(listing, 1500, 2))
    for corpus in sorted((REPO / "tests" / "corpus" / "replies").glob("*.toml")):
        add("model_reply", chunks(corpus.read_text(encoding="utf-8"), 1200, 1))
    add(
        "chinese",
        [
            "请读取配置文件，然后告诉我服务器监听的端口。如果文件不存在，请创建一个默认配置，"
            "端口设为八千，日志级别设为信息。完成后运行测试并报告结果。",
            "这个函数在输入为空列表时会抛出异常。请修复它，并为边界情况添加单元测试。"
            "不要修改公共接口，保持向后兼容。",
        ],
    )
    (HERE / "samples.json").write_text(
        json.dumps(samples, ensure_ascii=False, indent=0), encoding="utf-8"
    )
    print(len(samples), "samples,", sum(len(s["text"]) for s in samples), "characters")


if __name__ == "__main__":
    main()
