"""What the two OpenLLMetry (Traceloop) stacks share: the scenario's script and its ground truth, and
the removal of the method wrappers OpenLLMetry's instrumentors leave behind.

Nothing here imports a framework, so ``EXPECTED`` can be read where the frameworks are not installed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import ScenarioFacts

__all__ = [
    "EXPECTED",
    "EXPLODE_MESSAGE",
    "FINAL_OUTPUT",
    "HELPER_ANSWER",
    "HELPER_QUESTION",
    "HELPER_TURNS",
    "ORCHESTRATOR_TURNS",
    "PROMPT",
    "Turn",
    "remove_wrappers",
]

PROMPT = "What is the weather in Paris, and what should I wear?"
HELPER_QUESTION = "What should I wear?"
HELPER_ANSWER = "Wear a light jacket."
FINAL_OUTPUT = "It is sunny in Paris; wear a light jacket."
EXPLODE_MESSAGE = "explode failed: the detonator is broken"


@dataclass(frozen=True)
class Turn:
    """One scripted model response: a call to ``tool`` with ``args``, or the final ``text``; and its usage."""

    input_tokens: int
    output_tokens: int
    tool: str | None = None
    args: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""

    def call_id(self, index: int) -> str:
        """The id of the tool call this turn asks for (unique within a run)."""
        return f"call_{index}_{self.tool}"


ORCHESTRATOR_TURNS = (
    Turn(101, 11, tool="get_weather", args={"city": "Paris"}),
    Turn(123, 13, tool="explode"),
    Turn(147, 17, tool="ask_helper", args={"question": HELPER_QUESTION}),
    Turn(171, 19, text=FINAL_OUTPUT),
)
HELPER_TURNS = (Turn(37, 7, text=HELPER_ANSWER),)

_TURNS = ORCHESTRATOR_TURNS + HELPER_TURNS

#: ground truth, written from the script above (the conformance tests check the spans against it)
EXPECTED = ScenarioFacts(
    agents=("orchestrator",),
    nested={"orchestrator": ("helper",)},
    tools_in_order=("get_weather", "explode", "ask_helper"),
    tool_arguments=({"city": "Paris"}, {}, {"question": HELPER_QUESTION}),
    failed_tools=("explode",),
    model_calls=len(_TURNS),
    own_model_calls={"orchestrator": len(ORCHESTRATOR_TURNS), "helper": len(HELPER_TURNS)},
    input_tokens=sum(t.input_tokens for t in _TURNS),
    output_tokens=sum(t.output_tokens for t in _TURNS),
    total_tokens=sum(t.input_tokens + t.output_tokens for t in _TURNS),
    final_output=FINAL_OUTPUT,
)


def _wrapped_by(value: Any, package: str) -> bool:
    wrapper = getattr(value, "_self_wrapper", None)
    module = getattr(wrapper, "__module__", None)
    return isinstance(module, str) and module.startswith(package) and hasattr(value, "__wrapped__")


def _unwrap_members(owner: Any, package: str) -> None:
    for name, value in list(vars(owner).items()):
        original = value
        while _wrapped_by(value, package):
            value = value.__wrapped__
        if value is not original:
            setattr(owner, name, value)


def remove_wrappers(module_names: Iterable[str], package: str) -> None:
    """Undo the ``wrapt`` wrappers that code from ``package`` put on the functions of these modules and
    on the methods of the classes they hold (modules not imported yet are skipped).

    OpenLLMetry's instrumentors name their targets ``"Class.method"`` on a module path when they
    uninstrument, which the OTel ``unwrap`` helper does not resolve: without this their wrappers stay,
    bound to the old tracer provider, and a second ``instrument`` wraps them again.
    """
    for module_name in module_names:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        _unwrap_members(module, package)
        for value in list(vars(module).values()):
            if isinstance(value, type):
                _unwrap_members(value, package)
