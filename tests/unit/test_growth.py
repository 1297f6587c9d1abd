"""Nothing grows faster than the trace: summary(), the HTML page and slim do work linear in the spans,
counted (Python calls, not time: a loaded machine cannot make this flaky), and the cyclic collector
does not run while they do (each of its passes that reaches the built trace walks all of it again:
what made them grow faster than the trace)."""

from __future__ import annotations

import cProfile
import gc
import json
import math
import pstats
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import traceassert as ta
from traceassert._golden.slim import slim_trace
from traceassert._report import file_page, page_html

from .spanbuilder import SpanBuilder

#: the growth exponent allowed from the small size to the large one
MAX_EXPONENT = 1.1


def _trace(runs: int) -> ta.Trace:
    """``runs`` agent runs of 8 spans: the agent, then (model call asking for a tool, the tool) x 3, and
    the final model call; messages and arguments as JSON text."""
    b = SpanBuilder()
    for r in range(runs):
        root = b.agent(f"agent-{r % 3}")
        for step in range(3):
            call_id = f"call_{r}_{step}"
            output = [
                {
                    "role": "assistant",
                    "parts": [
                        {
                            "type": "tool_call",
                            "id": call_id,
                            "name": f"tool_{step}",
                            "arguments": {"q": f"query {r} {step}"},
                        }
                    ],
                }
            ]
            b.chat(
                root,
                100 + step,
                10 + step,
                **{
                    "gen_ai.output.messages": json.dumps(output),
                    "gen_ai.input.messages": json.dumps(
                        [{"role": "user", "parts": [{"type": "text", "content": f"question {r}"}]}]
                    ),
                },
            )
            b.tool(
                f"tool_{step}",
                root,
                args=json.dumps({"q": f"query {r} {step}"}),
                result=f"result {r} {step}",
                **({"status": "ERROR"} if (r + step) % 7 == 0 else {}),
            )
        b.chat(root, 120, 30)
    return b.trace()


STEPS: dict[str, tuple[Callable[[ta.Trace], Any], int]] = {
    # step, runs at the small size (the large one is 4 times as many)
    "summary()": (lambda t: t.summary(), 40),
    "HTML page": (lambda t: page_html(file_page([("trace", t)])), 40),
    "slim": (lambda t: slim_trace(t), 10),
}


def _calls(step: Callable[[ta.Trace], Any], trace: ta.Trace) -> int:
    profile = cProfile.Profile()
    profile.enable()
    try:
        step(trace)
    finally:
        profile.disable()
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generations of the collections the cyclic collector starts meanwhile."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(int(info.get("generation", -1)))

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


@pytest.mark.parametrize("name", list(STEPS))
def test_the_work_of_a_step_grows_linearly(name: str) -> None:
    step, runs = STEPS[name]
    small, large = _trace(runs), _trace(4 * runs)
    for trace in (small, large):
        _ = trace.tool_executions  # built: the step is measured alone
    step(_trace(2))  # imports and caches made once
    exponent = math.log(_calls(step, large) / _calls(step, small)) / math.log(
        len(large.spans) / len(small.spans)
    )
    assert exponent <= MAX_EXPONENT, f"{name}: work grows with exponent {exponent:.2f}"


@pytest.mark.parametrize("name", list(STEPS))
def test_the_collector_does_not_run_during_a_step(name: str, collections: list[int]) -> None:
    step, runs = STEPS[name]
    trace = _trace(4 * runs)
    _ = trace.tool_executions
    gc.collect()
    collections.clear()
    threshold = gc.get_threshold()
    gc.set_threshold(50, 1, 1)  # a collector eager to run: every step would start it, were it on
    try:
        step(trace)
    finally:
        gc.set_threshold(*threshold)
    # one young collection may start as the collector comes back on at the end, never one per object
    assert len(collections) <= 1, f"{name}: {len(collections)} collection(s) while it ran"


def test_the_ids_renamed_inside_text_are_found_by_a_trie_as_by_an_alternation() -> None:
    """slim renames the call ids inside longer text with one regular expression: a trie of the ids (a
    plain alternation of thousands of ids made renumbering grow with their number times the text). It
    finds what the alternation of the ids, longest first, finds (seeded cases)."""
    import random
    import re

    from traceassert._golden.renumber import trie_pattern

    rng = random.Random(24)
    for _ in range(300):
        words = sorted({"".join(rng.choice("ab_c1") for _ in range(rng.randint(1, 6))) for _ in range(12)})
        text = "".join(rng.choice("ab_c1 x") for _ in range(60))
        alternation = re.compile("|".join(map(re.escape, sorted(words, key=lambda w: (-len(w), w)))))
        trie = re.compile(trie_pattern(words))
        assert [m.span() for m in trie.finditer(text)] == [m.span() for m in alternation.finditer(text)]
