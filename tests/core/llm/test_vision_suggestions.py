"""The models offered to someone whose model does not read images: other vision models only."""

from __future__ import annotations

from loki_desktop.core.llm.mode import family, no_vision_message, vision_suggestions


def test_the_current_model_and_its_family_are_never_offered() -> None:
    offered = vision_suggestions("gemma3:4b")
    assert "gemma3" not in offered
    assert offered == ["qwen2.5vl", "llama3.2-vision"]
    assert "(par exemple qwen2.5vl, llama3.2-vision)" in no_vision_message("gemma3:1b")
    assert family("registry.example/me/llava:7b") == "llava"


def test_the_servers_own_vision_models_come_first() -> None:
    installed = ["gemma3:4b", "llava:7b", "gemma3:1b", "qwen2.5vl:3b"]
    offered = vision_suggestions("gemma3:1b", installed)
    # installed first; a known name whose family is already offered is not repeated
    assert offered == ["llava:7b", "qwen2.5vl:3b", "llama3.2-vision"]
    assert "llava:7b, qwen2.5vl:3b" in no_vision_message("gemma3:1b", installed)
