"""The shared script as an AutoGen AgentChat ``Swarm`` plays it: the helper is handed control, not called.

A swarm has no "agent as a tool": agents pass control with handoffs (``handoffs=["helper"]`` gives the
orchestrator's model the tool ``transfer_to_helper``). So the script's third orchestrator turn, which
elsewhere calls ``ask_helper(question=...)``, is ``transfer_to_helper()`` here, and what follows is the
swarm's: the helper takes over and its answer (`HELPER_ANSWER`) ends the run (the team stops at the
helper's first text message). The orchestrator's last scripted turn never happens.

`EXPECTED` is that run, from the script: two top-level agents (``orchestrator``, then ``helper``; nothing
nested), one handoff ``orchestrator -> helper`` (a `Handoff` record, never a tool execution), the tool
executions ``get_weather(city="Paris")`` and ``explode()`` (failed), the model calls the two agents make
(three and one) and their tokens, and the helper's answer as the final output.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import ScenarioFacts
from ._scenario import HELPER_ANSWER, HELPER_TURNS, ORCHESTRATOR_TURNS, Turn, scenario_facts

__all__ = ["EXPECTED", "HANDOFFS", "SCRIPTS", "TRANSFER", "turns"]

#: the handoff tool AutoGen gives the orchestrator's model
TRANSFER = "transfer_to_helper"


def turns() -> dict[str, tuple[Turn, ...]]:
    """Agent name -> the turns its model plays: the orchestrator's third turn hands off, and the run
    ends with the helper's answer."""
    handoff = ORCHESTRATOR_TURNS[2]
    orchestrator = (*ORCHESTRATOR_TURNS[:2], Turn(handoff.input_tokens, handoff.output_tokens, tool=TRANSFER))
    return {"orchestrator": orchestrator, "helper": HELPER_TURNS}


#: agent name -> its model's turns
SCRIPTS: Mapping[str, tuple[Turn, ...]] = turns()
#: every handoff (from agent, to agent), in order
HANDOFFS: tuple[tuple[str, str], ...] = (("orchestrator", "helper"),)

EXPECTED: ScenarioFacts = scenario_facts(
    SCRIPTS,
    agents=("orchestrator", "helper"),
    nested={},
    tools=[(t.tool, t.args) for t in SCRIPTS["orchestrator"] if t.tool is not None and t.tool != TRANSFER],
    failed=("explode",),
    output=HELPER_ANSWER,
)
