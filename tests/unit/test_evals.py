"""with_evaluation / check_eval: built-in evaluations, judge templates, custom evaluators, facts."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import traceassert as ta
from instrumentation import pydantic_ai as stack
from tests.unit.spanbuilder import SpanBuilder
from traceassert._evaluation.evals import (
    EvalResult,
    Fact,
    Template,
    load_template,
    make_evaluation,
    template_from_dict,
)
from traceassert._evaluation.facts import collect_facts
from traceassert._evaluation.judge import Judge, JudgeError
from traceassert._evaluation.results import recorded_scores

FINAL = stack.EXPECTED.final_output


@pytest.fixture
def trace(scenario_trace: ta.Trace) -> ta.Trace:
    return ta.Trace(scenario_trace.spans)  # its own ledger: what one test's checks remember stays there


@pytest.fixture
def a(trace: ta.Trace) -> ta.TraceAsserter:
    return ta.TraceAsserter(trace)


def fails(match: str) -> pytest.RaisesContext[ta.TraceAssertionError]:
    return pytest.raises(ta.TraceAssertionError, match=match)


class LabelLLM:
    """A fake LLM judge: answers with the label whose trigger word appears in the judged output."""

    def __init__(self, rules: Mapping[str, str], default: str) -> None:
        self.rules, self.default = rules, default
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        m = re.search(r"<output>\n(.*?)\n</output>", prompt, re.DOTALL)
        output = m.group(1) if m else ""
        label = next((lab for word, lab in self.rules.items() if word in output.lower()), self.default)
        return json.dumps({"label": label, "explanation": f"judged {output[:30]!r}"})


# -- facts ------------------------------------------------------------------------------------------------


def test_facts_of_the_real_scenario(a: ta.TraceAsserter) -> None:
    [trace_fact] = collect_facts(a._state, "traces")
    assert trace_fact.output == FINAL
    assert "What is the weather in Paris" in trace_fact.text("input")
    assert any("get_weather" in line for line in trace_fact.context)
    turns = collect_facts(a._state, "agentic_turns")
    assert [f.name for f in turns] == ["agent orchestrator #1"]  # nested helper is inside the turn
    assert [f.output for f in collect_facts(a.called_agent("helper")._state, "agentic_turns")] == [
        "Wear a light jacket."
    ]
    assert len(collect_facts(a._state, "agentic_sessions")) == 1
    inferences = collect_facts(a._state, "inferences")
    assert len(inferences) == stack.EXPECTED.model_calls and inferences[-1].output == FINAL
    tools = collect_facts(a._state, "tools")
    assert [f.input for f in tools] == [dict(x) for x in stack.EXPECTED.tool_arguments]
    [tool_trace] = collect_facts(a.called_tool("get_weather")._state, "traces")
    assert tool_trace.input == {"city": "Paris"} and "Sunny" in tool_trace.output
    with pytest.raises(ValueError, match="unknown fact_name 'spans'"):
        collect_facts(a._state, "spans")


def test_facts_without_agents_and_across_traces() -> None:
    b1, b2 = SpanBuilder("1" * 32), SpanBuilder("2" * 32)
    b1.span(
        "step",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "t",
            "gen_ai.tool.call.arguments": "{}",
            "gen_ai.tool.call.result": "first",
        },
    )
    b2.span(
        "step",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "t",
            "gen_ai.tool.call.arguments": "{}",
            "gen_ai.tool.call.result": "second",
        },
    )
    asserter = ta.TraceAsserter(ta.Trace(b1.spans + b2.spans))
    facts = collect_facts(asserter._state, "traces")
    assert [(f.name, f.output) for f in facts] == [("trace 11111111", "first"), ("trace 22222222", "second")]
    assert facts[0].context and "tool t" in facts[0].context[0]
    assert collect_facts(asserter._state, "agentic_turns") == []
    assert (
        Fact("traces", "x").text() == "" and Fact("traces", "x", input={"a": 1}).text("input") == '{"a": 1}'
    )


# -- built-in evaluations ------------------------------------------------------------------------------------


def test_keyword_presence(a: ta.TraceAsserter) -> None:
    a.check_eval("keyword_presence", "present", eval_options={"keywords": ["jacket", "SUNNY"]})
    a.check_eval(
        "keyword_presence",
        not_expected="absent",
        eval_options={"keywords": ["snow", "jacket"], "mode": "any"},
    )
    with fails(
        r"check_eval\('keyword_presence', fact_name='traces'\): expected label 'present'; 1 of 1 fact"
    ):
        a.check_eval("keyword_presence", "present", eval_options={"keywords": ["jacket", "umbrella"]})
    with fails(r"absent FAIL \(found none, missing \['Jacket'\]"):
        a.check_eval(
            "keyword_presence", "present", eval_options={"keywords": ["Jacket"], "case_sensitive": True}
        )
    a.check_eval("keyword_presence", "present", eval_options={"keywords": "Paris", "field": "input"})


def test_exact_match_uses_the_comparer(a: ta.TraceAsserter) -> None:
    a.check_eval("exact_match", "match", eval_options={"reference": FINAL})
    with fails("no_match FAIL"):
        a.check_eval("exact_match", "match", eval_options={"reference": FINAL.upper()})
    a.with_comparer("casefold").check_eval("exact_match", "match", eval_options={"reference": FINAL.upper()})
    a.check_eval(
        "exact_match",
        "match",
        eval_options={"reference": ["nope", FINAL.rstrip(".")], "comparer": "normalized"},
    )
    with pytest.raises(ValueError, match="needs option 'reference'"):
        a.check_eval("exact_match", "match")


def test_regex_match(a: ta.TraceAsserter) -> None:
    a.check_eval("regex_match", "match", eval_options={"pattern": r"sunny in \w+"})
    a.check_eval("regex_match", "no_match", eval_options={"pattern": r"sunny in \w+", "fullmatch": True})
    a.check_eval("regex_match", "match", eval_options={"pattern": r"^IT IS", "flags": re.IGNORECASE})
    with fails(r"does not match /\\d\+ degrees/"):
        a.check_eval("regex_match", "match", eval_options={"pattern": r"\d+ degrees"})


def test_json_validity(a: ta.TraceAsserter) -> None:
    tools = a.called_tool("get_weather")
    tools.check_eval("json_validity", "valid", fact_name="tools", eval_options={"field": "input"})
    tools.check_eval("json_validity", "valid", eval_options={"field": "input", "required_keys": ["city"]})
    with fails(r"invalid FAIL \(input is JSON but lacks key\(s\) 'date'\)"):
        tools.check_eval("json_validity", "valid", eval_options={"field": "input", "required_keys": ["date"]})
    with fails(r"invalid FAIL \(output is not JSON: "):
        a.check_eval("json_validity", "valid")
    with pytest.raises(ValueError, match="field must be 'input' or 'output'"):
        a.check_eval("json_validity", "valid", eval_options={"field": "context"})


def test_with_evaluation_options_and_new_asserters(a: ta.TraceAsserter) -> None:
    configured = a.with_evaluation("builtin", {"keywords": ["jacket"]})
    assert configured is not a and a._state.evaluation is None
    configured.check_eval("keyword_presence", "present")
    configured.check_eval("keyword_presence", "absent", eval_options={"keywords": ["snow"]})  # per call wins
    # the evaluation survives narrowing
    configured.called_agent("helper").check_eval("keyword_presence", "present", fact_name="agentic_turns")


def test_scores_are_recorded_per_fact(a: ta.TraceAsserter) -> None:
    with recorded_scores() as scores:
        a.check_eval(
            "keyword_presence",
            "present",
            fact_name="tools",
            fail_threshold=2,
            eval_options={"keywords": ["Paris"], "field": "input"},
        )
    assert [(s.name, s.value, s.passed) for s in scores] == [
        ("eval:keyword_presence", "present", True),
        ("eval:keyword_presence", "absent", False),
        ("eval:keyword_presence", "absent", False),
    ]
    assert scores[0].details["fact"] == "tool get_weather #1"


def test_fact_counts_and_threshold(a: ta.TraceAsserter) -> None:
    opts = {"keywords": ["Paris"], "field": "input"}
    with fails(r"expected label 'present'; 2 of 3 fact\(s\) did not match \(fail_threshold 1\)"):
        a.check_eval("keyword_presence", "present", fact_name="tools", fail_threshold=1, eval_options=opts)
    with fails(r"expected at least 4 tools fact\(s\) to evaluate, found 3"):
        a.check_eval(
            "keyword_presence", "present", fact_name="tools", min_facts=4, fail_threshold=3, eval_options=opts
        )
    with fails(r"expected at most 2 tools fact\(s\) to evaluate, found 3"):
        a.check_eval("keyword_presence", "present", fact_name="tools", max_facts=2, eval_options=opts)
    empty = ta.TraceAsserter(ta.Trace([]))
    with fails(r"expected at least 1 traces fact\(s\) to evaluate, found 0"):
        empty.check_eval("keyword_presence", "present", eval_options=opts)
    empty.check_eval("keyword_presence", "present", min_facts=0, eval_options=opts)


def test_message_and_argument_validation(a: ta.TraceAsserter) -> None:
    with fails("^the answer must mention snow\ncheck_eval"):
        a.check_eval(
            "keyword_presence",
            "present",
            message="the answer must mention snow",
            eval_options={"keywords": ["snow"]},
        )
    opts = {"keywords": ["x"]}
    with pytest.raises(ValueError, match="exactly one of eval_name, template and template_path"):
        a.check_eval(expected="present")
    with pytest.raises(ValueError, match="exactly one"):
        a.check_eval("keyword_presence", "present", template={"prompt": "p", "labels": ["a"]})
    with pytest.raises(ValueError, match="give expected and/or not_expected"):
        a.check_eval("keyword_presence", eval_options=opts)
    with pytest.raises(ValueError, match="'present' are both expected and not expected"):
        a.check_eval("keyword_presence", ["present"], "present", eval_options=opts)
    with pytest.raises(
        ValueError, match="'there' is not a label of evaluation 'keyword_presence': present, absent"
    ):
        a.check_eval("keyword_presence", "there", eval_options=opts)
    with pytest.raises(ValueError, match="unknown fact_name 'turns'"):
        a.check_eval("keyword_presence", "present", fact_name="turns", eval_options=opts)
    with pytest.raises(ValueError, match="min_facts must be an int >= 0"):
        a.check_eval("keyword_presence", "present", min_facts=-1, eval_options=opts)
    with pytest.raises(ValueError, match="max_facts \\(0\\) is less than min_facts \\(1\\)"):
        a.check_eval("keyword_presence", "present", max_facts=0, eval_options=opts)
    with pytest.raises(ValueError, match="unknown evaluation 'fluency'; known: answer_relevancy"):
        a.check_eval("fluency", "good")
    with pytest.raises(TypeError, match="a label \\(str\\) or a list of labels"):
        a.check_eval("keyword_presence", 1, eval_options=opts)  # type: ignore[arg-type]


# -- LLM-judge templates --------------------------------------------------------------------------------------


def test_built_in_judge_templates_need_a_judge(a: ta.TraceAsserter) -> None:
    with pytest.raises(
        ValueError, match=r"'sentiment' is judged by an LLM: call with_evaluation\(ta\.Judge\(fn\)\)"
    ):
        a.check_eval("sentiment", "positive")
    with pytest.raises(ValueError, match="unknown evaluator 'okahu': traceassert evaluates offline"):
        a.with_evaluation("okahu")


def test_built_in_judge_template_with_a_fake_llm(a: ta.TraceAsserter) -> None:
    llm = LabelLLM({"sunny": "positive", "storm": "negative"}, "neutral")
    judged = a.with_evaluation(Judge(llm))
    judged.check_eval("sentiment", "positive").check_eval("sentiment", not_expected=["negative", "neutral"])
    assert "overall sentiment" in llm.prompts[0] and f"<output>\n{FINAL}\n</output>" in llm.prompts[0]
    assert "What is the weather in Paris" in llm.prompts[0]
    with fails(
        r"(?s)expected label 'negative'; 1 of 1 fact.*results:\n.*positive FAIL \(judged 'It is sunny"
    ):
        judged.check_eval("sentiment", "negative")
    # a plain function is made a Judge; hallucination prompts carry the context
    halluc = LabelLLM({}, "no_hallucination")
    a.with_evaluation(halluc).check_eval("hallucination", "no_hallucination")
    assert "get_weather(city='Paris') -> 'Sunny, 21C in Paris' ok" in halluc.prompts[0]


def test_inline_and_file_templates(a: ta.TraceAsserter, tmp_path: Path) -> None:
    llm = LabelLLM({"jacket": "helpful"}, "unhelpful")
    inline = {
        "name": "helpfulness",
        "prompt": "Is this advice helpful?\nQ: {input}\nA: <output>\n{output}\n</output>",
        "labels": ["helpful", "unhelpful"],
    }
    judged = a.with_evaluation(Judge(llm))
    judged.check_eval(template=inline, expected="helpful")
    assert llm.prompts[-1].startswith("Is this advice helpful?\nQ: What is the weather in Paris")
    monocle_style = {
        "template": {
            "name": "tone",
            "eval_prompt": "Classify the tone.",
            "structure_output": {"label": {"enums": ["good", "bad"]}, "explanation": {"description": "why"}},
        }
    }
    path = tmp_path / "tone.json"
    path.write_text(json.dumps(monocle_style))
    tone_llm = LabelLLM({}, "bad")
    tone = a.with_evaluation(tone_llm)
    with fails(r"check_eval\('tone', fact_name='inferences'\): expected label 'good'; 5 of 5 fact"):
        tone.check_eval(template_path=path, expected="good", fact_name="inferences")
    assert len(tone_llm.prompts) == 5
    assert tone_llm.prompts[-1].startswith("Classify the tone.\n\nInput:\n<input>\nWhat is the weather")
    tone.check_eval(template_path=str(path), expected="good", fact_name="inferences", fail_threshold=5)
    with pytest.raises(ValueError, match="'great' is not a label of evaluation 'tone': good, bad"):
        tone.check_eval(template_path=str(path), expected="great")
    with pytest.raises(ValueError, match="judge template: call with_evaluation"):
        a.check_eval(template=inline, expected="helpful")


def test_template_loading_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_template(None, tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match=r"bad\.json is not valid JSON"):
        load_template(None, bad)
    with pytest.raises(ValueError, match="needs a non-empty 'prompt'"):
        template_from_dict({"labels": ["a"]})
    with pytest.raises(ValueError, match="needs 'labels'"):
        template_from_dict({"prompt": "p", "labels": []})
    with pytest.raises(ValueError, match="is a JSON object"):
        template_from_dict(["p"])
    assert template_from_dict({"prompt": "p", "labels": ["a"]}) == Template("custom_eval", "p", ("a",))


def test_a_judge_that_cannot_classify_raises_judge_error(a: ta.TraceAsserter) -> None:
    with pytest.raises(JudgeError, match="names none of the labels"):
        a.with_evaluation(lambda p: "I refuse.").check_eval("sentiment", "positive")


# -- custom evaluators ---------------------------------------------------------------------------------------


class LengthEvaluator:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Fact, dict[str, Any]]] = []

    def evaluate(
        self, eval_name: str, fact: Fact, options: dict[str, Any]
    ) -> EvalResult | str | tuple[str, str]:
        self.calls.append((eval_name, fact, options))
        n = len(fact.text())
        if eval_name == "length":
            return EvalResult("short" if n < options["limit"] else "long", f"{n} chars", score=float(n))
        if eval_name == "pair":
            return ("short", "as a tuple")
        return "short"


def test_custom_evaluator(a: ta.TraceAsserter) -> None:
    ev = LengthEvaluator()
    custom = a.with_evaluation(ev, {"limit": 100})
    with recorded_scores() as scores:
        custom.check_eval("length", "short")
    assert scores[0].details["score"] == float(len(FINAL))
    with fails(r"short FAIL \(42 chars\)"):
        custom.check_eval("length", "long")
    custom.check_eval("pair", "short").check_eval("anything", "short")
    custom.check_eval("keyword_presence", "present", eval_options={"keywords": ["jacket"]})  # still built-in
    custom.check_eval(template={"name": "t", "prompt": "p", "labels": ["short", "long"]}, expected="short")
    assert isinstance(ev.calls[-1][2]["template"], Template)
    assert [c[0] for c in ev.calls] == ["length", "length", "pair", "anything", "t"]
    with pytest.raises(TypeError, match="return an EvalResult, a label or \\(label, explanation\\)"):
        a.with_evaluation(type("Bad", (), {"evaluate": lambda self, *args: 3})()).check_eval("x", "y")


def test_make_evaluation_rejects_odd_evaluators() -> None:
    with pytest.raises(TypeError, match=r"an evaluator is 'builtin', a ta\.Judge"):
        make_evaluation(3)
    with pytest.raises(TypeError, match="eval_options must be a mapping"):
        make_evaluation("builtin", ["x"])  # type: ignore[arg-type]
    assert make_evaluation(None).evaluator is None
    assert isinstance(make_evaluation(lambda p: "x").judge, Judge)
