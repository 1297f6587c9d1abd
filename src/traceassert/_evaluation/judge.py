"""``ta.Judge``: an LLM judge around any function ``fn(prompt: str) -> str``.

traceassert calls no model itself: the judge's function is whatever client the user has (or a fake in
tests). ``Judge(fn).assert_that(text).satisfies(*criteria)`` asks whether the text meets each criterion
(one call per criterion, or one call for all with ``batch=True``) and fails with every unmet criterion
and the judge's reasoning. A judge that cannot answer (its function raised, returned no text, or replied
in a way that cannot be read) raises :class:`JudgeError`, never an assertion failure.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._checks.matching import as_text
from .._common.text import short
from .results import record_score

__all__ = ["Judge", "JudgeAssertion", "JudgeError", "Verdict"]

_PASS = frozenset({"pass", "passed", "yes", "true", "satisfied", "met", "ok"})
_FAIL = frozenset({"fail", "failed", "no", "false", "not satisfied", "unsatisfied", "not met", "not_met"})
_VERDICT_KEYS = ("verdict", "passed", "pass", "satisfied", "result")
_REASON_KEYS = ("reasoning", "reason", "explanation", "rationale")
_LABEL_KEYS = ("label", "classification", "answer", "verdict")


class JudgeError(RuntimeError):
    """The judge could not give a usable answer. ``reply`` is its last reply (None if it raised)."""

    def __init__(self, message: str, *, reply: str | None = None) -> None:
        self.reply = reply
        if reply is not None:
            message = f"{message}; the judge replied: {short(reply, 300)}"
        super().__init__(message)


@dataclass(frozen=True)
class Verdict:
    """The judge's answer for one criterion."""

    criterion: str
    passed: bool
    reasoning: str = ""


class Judge:
    """An LLM judge: ``fn`` takes a prompt and returns the model's reply text.

    ``batch``: judge all criteria of a ``satisfies`` call in one request (default: one per criterion).
    ``retries``: how many times to ask again when the function raises or the reply cannot be read.
    """

    def __init__(
        self, fn: Callable[[str], str], *, batch: bool = False, retries: int = 0, name: str | None = None
    ) -> None:
        if not callable(fn):
            raise TypeError(f"Judge needs a function prompt -> reply, got {fn!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"retries must be an int >= 0, got {retries!r}")
        self.fn = fn
        self.batch = batch
        self.retries = retries
        self.name = name or getattr(fn, "__name__", type(fn).__name__)

    def __repr__(self) -> str:
        return f"Judge({self.name!r}, batch={self.batch}, retries={self.retries})"

    # -- talking to the model -----------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """Send ``prompt`` to the judge's function once; return its reply (JudgeError if it fails)."""
        try:
            reply = self.fn(prompt)
        except Exception as exc:
            raise JudgeError(f"judge {self.name!r} raised {type(exc).__name__}: {exc}") from exc
        if inspect.isawaitable(reply):
            close = getattr(reply, "close", None)
            if close is not None:
                close()
            raise JudgeError(f"judge {self.name!r} returned an awaitable: give Judge a synchronous function")
        if not isinstance(reply, str):
            raise JudgeError(f"judge {self.name!r} returned {type(reply).__name__}, not the reply text")
        if not reply.strip():
            raise JudgeError(f"judge {self.name!r} returned an empty reply")
        return reply

    def _ask_and_read(self, prompt: str, read: Callable[[str], Any]) -> Any:
        last: JudgeError | None = None
        for _ in range(self.retries + 1):
            try:
                return read(self.ask(prompt))
            except JudgeError as exc:
                last = exc
        assert last is not None
        raise last

    def classify(self, prompt: str, labels: Sequence[str]) -> tuple[str, str]:
        """Ask the judge to pick one of ``labels`` for ``prompt``; return ``(label, explanation)``."""
        if not labels:
            raise ValueError("classify needs at least one label")
        full = (
            f"{prompt.rstrip()}\n\nAnswer with only a JSON object: "
            f'{{"label": one of {json.dumps(list(labels))}, "explanation": "<one or two sentences>"}}'
        )
        return self._ask_and_read(full, lambda reply: read_label(reply, labels))  # type: ignore[no-any-return]

    def judge(self, text: Any, *criteria: str, batch: bool | None = None) -> list[Verdict]:
        """The judge's verdict on ``text`` for each criterion, in order."""
        crits = _criteria(criteria)
        body = as_text(text)
        if batch if batch is not None else self.batch:
            prompt = _batch_prompt(body, crits)
            return self._ask_and_read(prompt, lambda reply: read_batch(reply, crits))  # type: ignore[no-any-return]
        out = []
        for crit in crits:
            prompt = _single_prompt(body, crit)
            passed, why = self._ask_and_read(prompt, read_verdict)
            out.append(Verdict(crit, passed, why))
        return out

    def assert_that(self, text: Any) -> JudgeAssertion:
        """Checks on ``text`` (any value; non-strings are judged as JSON text)."""
        return JudgeAssertion(self, text)


class JudgeAssertion:
    """``Judge.assert_that(text)``: ``satisfies(*criteria)`` checks; chainable."""

    __slots__ = ("judge", "text")

    def __init__(self, judge: Judge, text: Any) -> None:
        self.judge = judge
        self.text = text

    def satisfies(
        self, *criteria: str, batch: bool | None = None, message: str | None = None
    ) -> JudgeAssertion:
        """Fail (TraceAssertionError) unless the judge finds every criterion met; records each verdict as a
        ``judge`` score."""
        __tracebackhide__ = True
        from .expect import report_failure

        verdicts = self.judge.judge(self.text, *criteria, batch=batch)
        for v in verdicts:
            record_score(
                "judge",
                1.0 if v.passed else 0.0,
                passed=v.passed,
                criterion=v.criterion,
                reasoning=v.reasoning,
            )
        failed = [v for v in verdicts if not v.passed]
        if failed:
            lines = [message] if message else []
            lines.append(
                f"Judge({self.judge.name!r}).assert_that(...).satisfies: expected the text to satisfy "
                f"{len(verdicts)} criteria, {len(failed)} not satisfied"
            )
            lines.append(f"text judged: {short(as_text(self.text), 300)}")
            lines.append("not satisfied:")
            lines.extend(f"  - {v.criterion!r}: {v.reasoning or '(no reasoning given)'}" for v in failed)
            passed = [v for v in verdicts if v.passed]
            if passed:
                lines.append("satisfied:")
                lines.extend(f"  - {v.criterion!r}: {v.reasoning or '(no reasoning given)'}" for v in passed)
            report_failure("\n".join(lines))
        return self


# -- prompts ------------------------------------------------------------------------------------------


def _criteria(criteria: Sequence[str]) -> list[str]:
    if not criteria:
        raise TypeError("satisfies needs at least one criterion")
    for c in criteria:
        if not isinstance(c, str) or not c.strip():
            raise TypeError(f"a criterion is a non-empty str, got {c!r}")
    return list(criteria)


def _single_prompt(text: str, criterion: str) -> str:
    return (
        "You are a strict evaluator. Decide whether the text below satisfies the criterion.\n\n"
        f"Criterion: {criterion}\n\n<text>\n{text}\n</text>\n\n"
        'Answer with only a JSON object: {"verdict": "pass" or "fail", "reasoning": "<one or two sentences>"}'
    )


def _batch_prompt(text: str, criteria: Sequence[str]) -> str:
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(criteria, 1))
    return (
        "You are a strict evaluator. Decide, for each numbered criterion, whether the text below "
        f"satisfies it.\n\nCriteria:\n{numbered}\n\n<text>\n{text}\n</text>\n\n"
        'Answer with only a JSON object: {"results": [{"criterion": <number>, "verdict": "pass" or "fail", '
        '"reasoning": "<one or two sentences>"}]} with one entry per criterion.'
    )


# -- reading replies ----------------------------------------------------------------------------------

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def json_values(reply: str) -> Iterator[Any]:
    """JSON values found in ``reply``: the whole reply, fenced blocks, then objects/arrays inside text."""
    text = reply.strip()
    decoder = json.JSONDecoder()
    for candidate in (text, *(m.group(1).strip() for m in _FENCE.finditer(text))):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        yield value
    for i, ch in enumerate(text):
        if ch in "{[":
            try:
                value, _end = decoder.raw_decode(text, i)
            except ValueError:
                continue
            yield value


def _verdict_value(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().strip(".!").casefold()
        if word in _PASS:
            return True
        if word in _FAIL:
            return False
    return None


def _from_object(obj: Any) -> tuple[bool, str] | None:
    if not isinstance(obj, dict):
        return None
    for key in _VERDICT_KEYS:
        if key in obj:
            passed = _verdict_value(obj[key])
            if passed is not None:
                reason = next((str(obj[k]) for k in _REASON_KEYS if obj.get(k) is not None), "")
                return passed, reason
    return None


def read_verdict(reply: str) -> tuple[bool, str]:
    """``(passed, reasoning)`` from a reply: a JSON object with a verdict, or text starting with PASS/FAIL
    (or YES/NO)."""
    for value in json_values(reply):
        found = _from_object(value)
        if found is not None:
            return found
    m = re.match(r"\s*\**\s*(pass|fail|yes|no)\b\**[\s:.,\-–—]*(.*)", reply, re.IGNORECASE | re.DOTALL)
    if m:
        return m.group(1).casefold() in ("pass", "yes"), m.group(2).strip()
    raise JudgeError("the judge's reply holds no pass/fail verdict", reply=reply)


def read_batch(reply: str, criteria: Sequence[str]) -> list[Verdict]:
    """One verdict per criterion from a batched reply (a list, or an object with ``results``)."""
    for value in json_values(reply):
        items = value.get("results", value.get("verdicts")) if isinstance(value, dict) else value
        if not isinstance(items, list) or not items:
            continue
        got: dict[int, tuple[bool, str]] = {}
        for pos, item in enumerate(items):
            found = _from_object(item)
            if found is None:
                break
            index = _criterion_index(item.get("criterion"), criteria, pos)
            if index is not None:
                got.setdefault(index, found)
        else:
            missing = [c for i, c in enumerate(criteria) if i not in got]
            if missing:
                raise JudgeError(
                    f"the judge's batched reply has no verdict for {', '.join(map(repr, missing))}",
                    reply=reply,
                )
            return [Verdict(c, *got[i]) for i, c in enumerate(criteria)]
    raise JudgeError("the judge's batched reply holds no list of verdicts", reply=reply)


def _criterion_index(ref: Any, criteria: Sequence[str], pos: int) -> int | None:
    if ref is None:
        return pos if pos < len(criteria) else None
    if isinstance(ref, int | str) and not isinstance(ref, bool) and str(ref).strip().isdigit():
        index = int(str(ref).strip()) - 1
        return index if 0 <= index < len(criteria) else None
    if isinstance(ref, str):
        for i, c in enumerate(criteria):
            if ref.strip().casefold() == c.strip().casefold():
                return i
    return None


def _norm_label(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().strip(".!\"'`*").casefold())


def read_label(reply: str, labels: Sequence[str]) -> tuple[str, str]:
    """``(label, explanation)`` from a reply: a JSON object with a label, or a reply that is one label."""
    by_norm = {_norm_label(label): label for label in labels}
    for value in json_values(reply):
        if not isinstance(value, dict):
            continue
        for key in _LABEL_KEYS:
            raw = value.get(key)
            if isinstance(raw, str):
                label = by_norm.get(_norm_label(raw))
                if label is None:
                    raise JudgeError(
                        f"the judge answered label {raw!r}, not one of {list(labels)}", reply=reply
                    )
                reason = next((str(value[k]) for k in _REASON_KEYS if value.get(k) is not None), "")
                return label, reason
    stripped = reply.strip()
    first, _, rest = stripped.partition("\n")
    head, _, tail = first.partition(":")
    for candidate, explanation in ((stripped, ""), (first, rest), (head, f"{tail}\n{rest}")):
        label = by_norm.get(_norm_label(candidate))
        if label is not None:
            return label, explanation.strip()
    raise JudgeError(f"the judge's reply names none of the labels {list(labels)}", reply=reply)
