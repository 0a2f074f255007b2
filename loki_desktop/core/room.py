"""How many tokens a message's attached files may take before it is sent.

The request is fitted by core.llm.budget: older history is left out before the newest
message is cut, so what bounds the files is the model's context (the backends'
`context_length`, or the `num_ctx` setting) less the answer's reserve, the system texts,
the native tools and the person's words, as the budget counts them.
"""

from __future__ import annotations

import math

from loki_desktop.core.agent import Agent
from loki_desktop.core.instructions import instruction_texts, read_agents_md
from loki_desktop.core.llm.budget import (
    MESSAGE_OVERHEAD,
    REQUEST_OVERHEAD,
    SAFETY_MARGIN,
    TOOLS_PREAMBLE,
    answer_reserve,
)
from loki_desktop.core.prompts import system_prompt
from loki_desktop.core.slim import slim_spec, spec_tokens
from loki_desktop.core.tokens import estimate_tokens


async def room_for_files(agent: Agent, said: str) -> int:
    """Estimated tokens (core.tokens, uncalibrated) left for the files of a message whose
    words are `said`. Raises BackendError when the server cannot be asked."""
    model = await agent.resolve_model()
    budget = agent.budget
    window = await budget.window(agent.backend, model, agent.config.num_ctx)
    root = agent.workspace_root
    agents_md = read_agents_md(root) if root is not None and agent.config.agents_md else None
    names = agent.toolbox.names()
    system = [system_prompt(str(root) if root is not None else None, names)]
    system += instruction_texts(agent.config.instructions, agents_md)
    fixed = REQUEST_OVERHEAD + sum(estimate_tokens(t) + MESSAGE_OVERHEAD for t in system)
    specs = agent.toolbox.specs()
    if specs:
        fixed += TOOLS_PREAMBLE + sum(spec_tokens(slim_spec(spec)) for spec in specs)
    fixed += estimate_tokens(said) + MESSAGE_OVERHEAD
    scale = budget.factor(model) * (1 + SAFETY_MARGIN)
    limit = window - answer_reserve(window)
    return max(0, math.floor(limit / scale) - fixed)
