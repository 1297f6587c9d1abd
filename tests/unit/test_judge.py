"""ta.Judge with fake LLM callables: per-criterion and batched judging, reply parsing, judge errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

import traceassert as ta
from traceassert._evaluation.judge import (
    Judge,
    JudgeError,
    Verdict,
    json_values,
    read_batch,
    read_label,
    read_verdict,
)
from traceassert._evaluation.results import recorded_scores


class FakeLLM:
    """Answers like a careful judge: a criterion 'mentions X' passes when X is in the judged text."""

    def __init__(self, style: str = "json") -> None:
        self.prompts: list[str] = []
        self.style = style

    def _text(self, prompt: str) -> str:
        m = re.search(r"<text>\n(.*)\n</text>", prompt, re.DOTALL)
        assert m is not None, prompt
        return m.group(1)

    def _verdict(self, criterion: str, text: str) -> tuple[bool, str]:
        word = criterion.removeprefix("mentions ").strip()
        ok = word.lower() in text.lower()
        return ok, f"the text {'mentions' if ok else 'does not mention'} {word}"

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        text = self._text(prompt)
        if "Criteria:\n" in prompt:
            block = prompt.split("Criteria:\n", 1)[1].split("\n\n", 1)[0]
            results = []
            for line in block.splitlines():
                number, _, criterion = line.partition(". ")
                ok, why = self._verdict(criterion, text)
                results.append(
                    {"criterion": int(number), "verdict": "pass" if ok else "fail", "reasoning": why}
                )
            return "Here you go:\n```json\n" + json.dumps({"results": results}) + "\n```"
        criterion = re.search(r"Criterion: (.*)\n", prompt)
        assert criterion is not None
        ok, why = self._verdict(criterion.group(1), text)
        if self.style == "text":
            return f"{'PASS' if ok else 'FAIL'}: {why}"
        return json.dumps({"verdict": "pass" if ok else "fail", "reasoning": why})


ANSWER = "It is sunny in Paris; wear a light jacket."


def test_one_call_per_criterion() -> None:
    llm = FakeLLM()
    judge = Judge(llm)
    judge.assert_that(ANSWER).satisfies("mentions Paris", "mentions jacket")
    assert len(llm.prompts) == 2
    assert "Criterion: mentions Paris" in llm.prompts[0] and ANSWER in llm.prompts[0]


def test_failure_lists_each_failed_criterion_with_reasoning() -> None:
    judge = Judge(FakeLLM(), name="fake")
    with pytest.raises(ta.TraceAssertionError) as info:
        judge.assert_that(ANSWER).satisfies("mentions Paris", "mentions umbrella", "mentions temperature")
    text = str(info.value)
    assert "expected the text to satisfy 3 criteria, 2 not satisfied" in text
    assert "not satisfied:\n  - 'mentions umbrella': the text does not mention umbrella" in text
    assert "  - 'mentions temperature': the text does not mention temperature" in text
    assert "satisfied:\n  - 'mentions Paris': the text mentions Paris" in text
    assert "Judge('fake')" in text and "text judged: 'It is sunny" in text


def test_batched_judging_uses_one_call() -> None:
    llm = FakeLLM()
    judge = Judge(llm, batch=True)
    judge.assert_that(ANSWER).satisfies("mentions Paris", "mentions jacket", "mentions sunny")
    assert (
        len(llm.prompts) == 1 and "1. mentions Paris\n2. mentions jacket\n3. mentions sunny" in llm.prompts[0]
    )
    with pytest.raises(ta.TraceAssertionError, match="1 not satisfied"):
        judge.assert_that(ANSWER).satisfies("mentions Paris", "mentions snow")
    # batch can be chosen per call
    llm2 = FakeLLM()
    Judge(llm2).assert_that(ANSWER).satisfies("mentions Paris", "mentions sunny", batch=True)
    assert len(llm2.prompts) == 1


def test_plain_text_verdicts_and_chaining() -> None:
    judge = Judge(FakeLLM(style="text"))
    check = judge.assert_that({"answer": ANSWER})  # non-strings are judged as JSON text
    assert check.satisfies("mentions Paris").satisfies("mentions answer") is check
    with pytest.raises(ta.TraceAssertionError, match="'mentions snow': the text does not mention snow"):
        check.satisfies("mentions snow", message="weather answer")


def test_verdicts_are_recorded_as_scores() -> None:
    with recorded_scores() as scores:
        with pytest.raises(ta.TraceAssertionError):
            Judge(FakeLLM()).assert_that(ANSWER).satisfies("mentions Paris", "mentions snow")
    assert [(s.name, s.value, s.passed, s.details["criterion"]) for s in scores] == [
        ("judge", 1.0, True, "mentions Paris"),
        ("judge", 0.0, False, "mentions snow"),
    ]


def test_judge_returns_verdicts() -> None:
    verdicts = Judge(FakeLLM()).judge(ANSWER, "mentions Paris", "mentions snow")
    assert verdicts == [
        Verdict("mentions Paris", True, "the text mentions Paris"),
        Verdict("mentions snow", False, "the text does not mention snow"),
    ]


@pytest.mark.parametrize(
    ("fn", "match"),
    [
        (
            lambda p: (_ for _ in ()).throw(TimeoutError("model timed out")),
            "raised TimeoutError: model timed out",
        ),
        (lambda p: "", "returned an empty reply"),
        (lambda p: None, "returned NoneType, not the reply text"),
        (
            lambda p: "I am not sure what you mean.",
            "holds no pass/fail verdict; the judge replied: 'I am not sure",
        ),
        (lambda p: '{"verdict": "maybe"}', "holds no pass/fail verdict"),
    ],
)
def test_a_judge_that_cannot_answer_raises_judge_error(fn: Callable[[str], object], match: str) -> None:
    judge = Judge(fn)  # type: ignore[arg-type]
    with pytest.raises(JudgeError, match=match) as info:
        judge.assert_that("text").satisfies("is short")
    assert not isinstance(info.value, AssertionError)


def test_async_functions_are_refused() -> None:
    async def llm(prompt: str) -> str:
        return "PASS"

    with pytest.raises(JudgeError, match="returned an awaitable"):
        Judge(llm).assert_that("x").satisfies("anything")  # type: ignore[arg-type]


def test_retries_ask_again() -> None:
    replies = iter(["???", "still thinking", '{"verdict": true, "reason": "fine"}'])
    asked: list[str] = []

    def flaky(prompt: str) -> str:
        asked.append(prompt)
        return next(replies)

    assert Judge(flaky, retries=2).judge("x", "c") == [Verdict("c", True, "fine")]
    assert len(asked) == 3
    with pytest.raises(JudgeError):
        Judge(lambda p: "???", retries=1).judge("x", "c")


def test_batched_reply_problems_are_judge_errors() -> None:
    judge = Judge(lambda p: '{"results": [{"criterion": 1, "verdict": "pass"}]}', batch=True)
    with pytest.raises(JudgeError, match="no verdict for 'second'"):
        judge.judge("x", "first", "second")
    with pytest.raises(JudgeError, match="holds no list of verdicts"):
        Judge(lambda p: "PASS", batch=True).judge("x", "first")


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="needs a function"):
        Judge("gpt-4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retries must be"):
        Judge(FakeLLM(), retries=-1)
    with pytest.raises(TypeError, match="at least one criterion"):
        Judge(FakeLLM()).assert_that("x").satisfies()
    with pytest.raises(TypeError, match="non-empty str"):
        Judge(FakeLLM()).assert_that("x").satisfies("  ")


def test_reading_replies() -> None:
    assert list(json_values('noise {"a": 1} more [2]')) == [{"a": 1}, [2]]
    assert read_verdict('```json\n{"passed": false, "explanation": "too long"}\n```') == (False, "too long")
    assert read_verdict("**YES** - it does") == (True, "it does")
    assert read_verdict("no. It does not.") == (False, "It does not.")
    assert read_batch('[{"verdict": "fail", "reasoning": "r1"}, {"verdict": "pass"}]', ["a", "b"]) == [
        Verdict("a", False, "r1"),
        Verdict("b", True, ""),
    ]
    assert read_batch(
        '{"verdicts": [{"criterion": "B", "verdict": "yes"}, {"criterion": "a", "verdict": "no"}]}',
        [
            "a",
            "b",
        ],
    ) == [Verdict("a", False, ""), Verdict("b", True, "")]


def test_classify_and_reading_labels() -> None:
    prompts: list[str] = []

    def llm(prompt: str) -> str:
        prompts.append(prompt)
        return '{"label": "Positive", "explanation": "cheerful"}'

    assert Judge(llm).classify("Rate it.", ["negative", "positive"]) == ("positive", "cheerful")
    assert (
        prompts[0].startswith("Rate it.\n\nAnswer with only a JSON object")
        and '["negative", "positive"]' in prompts[0]
    )
    assert read_label("no hallucination", ["no_hallucination", "major_hallucination"]) == (
        "no_hallucination",
        "",
    )
    assert read_label("mostly-complete: one part is missing\nmore", ["complete", "mostly_complete"]) == (
        "mostly_complete",
        "one part is missing\nmore",
    )
    with pytest.raises(JudgeError, match="answered label 'great', not one of"):
        read_label('{"label": "great"}', ["good", "bad"])
    with pytest.raises(JudgeError, match="names none of the labels"):
        read_label("It is hard to say.", ["good", "bad"])
    with pytest.raises(ValueError, match="at least one label"):
        Judge(llm).classify("x", [])
