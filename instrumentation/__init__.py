"""Framework stacks: real OpenTelemetry instrumentation plus a scripted scenario agent per framework.

Each module in this package is one *stack*: a framework together with the instrumentation that turns
its runs into spans. A stack module exposes

- ``instrument(tracer_provider=None, **options)`` / ``uninstrument()``: switch the framework's real
  instrumentation on (exporting to ``tracer_provider``, or to the global provider when None) and off;
- ``run_scenario()`` / ``run_scenario_async()``: run the shared scenario on the framework's own test
  model (no network, no API keys) and return the final output;
- ``EXPECTED``: a `ScenarioFacts` written from the script, never from spans, so tests can check that
  what traceassert reconstructs from the spans matches what actually happened;
- ``record_spans()``: run the scenario under an in-memory exporter and return the finished spans.

See ``README.md`` in this folder for the support matrix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["ScenarioFacts"]


@dataclass(frozen=True)
class ScenarioFacts:
    """Ground truth about one scenario run, as scripted.

    Tool names and model calls count every execution, including failed ones. Token counts sum every
    model call of the run, nested agents included.
    """

    #: names of the top-level agents, in start order
    agents: tuple[str, ...]
    #: parent agent name -> names of the agents it ran (directly), in start order
    nested: Mapping[str, tuple[str, ...]]
    #: every tool execution in order, across all agents, failed ones included
    tools_in_order: tuple[str, ...]
    #: the arguments each execution in ``tools_in_order`` received, same order
    tool_arguments: tuple[Mapping[str, Any], ...]
    #: names of the tool executions that failed, in order
    failed_tools: tuple[str, ...]
    #: logical model calls of the whole run, nested agents included
    model_calls: int
    #: agent name -> model calls that agent made itself (not its nested agents)
    own_model_calls: Mapping[str, int]
    input_tokens: int
    output_tokens: int
    total_tokens: int
    #: what the top-level agent returned
    final_output: str

    def __post_init__(self) -> None:
        # Freeze the mappings too, so a test cannot alter the ground truth another test relies on.
        object.__setattr__(self, "nested", MappingProxyType(dict(self.nested)))
        object.__setattr__(self, "own_model_calls", MappingProxyType(dict(self.own_model_calls)))
        object.__setattr__(
            self, "tool_arguments", tuple(MappingProxyType(dict(a)) for a in self.tool_arguments)
        )
        if len(self.tool_arguments) != len(self.tools_in_order):
            raise ValueError("tool_arguments must have one entry per tool in tools_in_order")
        if self.total_tokens != self.input_tokens + self.output_tokens:
            raise ValueError("total_tokens must equal input_tokens + output_tokens")
        if sum(self.own_model_calls.values()) != self.model_calls:
            raise ValueError("own_model_calls must add up to model_calls")

    def to_json(self) -> dict[str, Any]:
        """The facts as plain JSON data (lists and dicts), as ``tests/data/*.facts.json`` stores them."""
        return {
            "agents": list(self.agents),
            "nested": {name: list(children) for name, children in self.nested.items()},
            "tools_in_order": list(self.tools_in_order),
            "tool_arguments": [dict(arguments) for arguments in self.tool_arguments],
            "failed_tools": list(self.failed_tools),
            "model_calls": self.model_calls,
            "own_model_calls": dict(self.own_model_calls),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
            "final_output": self.final_output,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScenarioFacts:
        """The facts `to_json` wrote."""
        return cls(
            agents=tuple(data["agents"]),
            nested={name: tuple(children) for name, children in data["nested"].items()},
            tools_in_order=tuple(data["tools_in_order"]),
            tool_arguments=tuple(data["tool_arguments"]),
            failed_tools=tuple(data["failed_tools"]),
            model_calls=data["model_calls"],
            own_model_calls=dict(data["own_model_calls"]),
            input_tokens=data["input_tokens"],
            output_tokens=data["output_tokens"],
            total_tokens=data["total_tokens"],
            final_output=data["final_output"],
        )
