"""Evaluations for ``check_eval``: facts, built-in evaluations, LLM-judge templates and evaluators.

A *fact* is one thing evaluated: a whole trace (``traces``), the agent invocations of one conversation
(``agentic_sessions``), one agent invocation (``agentic_turns``), one model call (``inferences``) or one
tool execution (``tools``), each with an input, an output and context (tool results and retrieved
documents). An evaluation gives each fact a *label*.

Built-in evaluations run locally, without a model: ``exact_match`` (``match``/``no_match``; option
``reference``), ``regex_match`` (``match``/``no_match``; option ``pattern``), ``json_validity``
(``valid``/``invalid``; option ``required_keys``) and ``keyword_presence`` (``present``/``absent``;
options ``keywords``, ``mode`` "all"/"any", ``case_sensitive``). Every one reads the fact's ``output``
unless option ``field`` is ``"input"``.

Anything else is an LLM-judge template (a built-in one by name, or ``template=``/``template_path=``) run
by the evaluator set with ``with_evaluation``: a ``ta.Judge``, a function ``prompt -> reply`` (made a
Judge), or an object with ``evaluate(eval_name, fact, options)`` returning an :class:`EvalResult`, a
label, or ``(label, explanation)``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._checks.matching import as_text
from .._common.text import short
from .comparers import Comparer, exact, make_comparer
from .judge import Judge
from .templates import JUDGE_TEMPLATES

__all__ = [
    "BUILTIN_EVALS",
    "EvalResult",
    "Evaluation",
    "Fact",
    "Template",
    "evaluate_fact",
    "labels_for",
    "load_template",
    "make_evaluation",
]


@dataclass(frozen=True)
class Fact:
    """One thing evaluated: its ``kind`` (the fact name), a ``name`` for messages, input, output, context."""

    kind: str
    name: str
    input: Any = None
    output: Any = None
    context: tuple[str, ...] = ()

    def text(self, which: str = "output") -> str:
        """The input or output as text ("" when not recorded)."""
        if which not in ("input", "output"):
            raise ValueError(f"field must be 'input' or 'output', got {which!r}")
        value = self.input if which == "input" else self.output
        return "" if value is None else as_text(value)


@dataclass(frozen=True)
class EvalResult:
    """An evaluation's verdict on one fact: a ``label``, why, and an optional numeric ``score``."""

    label: str
    explanation: str = ""
    score: float | None = None


# -- built-in evaluations -----------------------------------------------------------------------------


def _field(fact: Fact, options: Mapping[str, Any]) -> tuple[str, Any]:
    which = options.get("field", "output")
    if which not in ("input", "output"):
        raise ValueError(f"option field must be 'input' or 'output', got {which!r}")
    return which, fact.input if which == "input" else fact.output


def _required(options: Mapping[str, Any], key: str, eval_name: str) -> Any:
    if options.get(key) is None:
        raise ValueError(f"evaluation {eval_name!r} needs option {key!r} (eval_options={{{key!r}: ...}})")
    return options[key]


def _exact_match(fact: Fact, options: Mapping[str, Any], comparer: Comparer | None) -> EvalResult:
    ref = _required(options, "reference", "exact_match")
    refs = list(ref) if isinstance(ref, list | tuple) else [ref]
    if "comparer" in options:
        comparer = make_comparer(options["comparer"])
    cmp = comparer or exact
    which, value = _field(fact, options)
    if value is None:
        return EvalResult("no_match", f"no {which} is recorded")
    ok = any(cmp(r, value) for r in refs)
    verb = "equals" if ok else "equals none of"
    return EvalResult("match" if ok else "no_match", f"{which} {short(value, 120)} {verb} {short(refs, 120)}")


def _regex_match(fact: Fact, options: Mapping[str, Any], comparer: Comparer | None) -> EvalResult:
    pattern = _required(options, "pattern", "regex_match")
    regex = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern, int(options.get("flags", 0)))
    which, value = _field(fact, options)
    text = fact.text(which)
    found = regex.fullmatch(text) if options.get("fullmatch") else regex.search(text)
    if found:
        return EvalResult(
            "match", f"{which} matches /{regex.pattern}/ at {found.start()}: {short(found.group(0), 80)}"
        )
    return EvalResult("no_match", f"{which} {short(value, 120)} does not match /{regex.pattern}/")


def _json_validity(fact: Fact, options: Mapping[str, Any], comparer: Comparer | None) -> EvalResult:
    which, value = _field(fact, options)
    if value is None:
        return EvalResult("invalid", f"no {which} is recorded")
    if isinstance(value, str | bytes):
        try:
            value = json.loads(value)
        except ValueError as exc:
            return EvalResult("invalid", f"{which} is not JSON: {exc}")
    required = options.get("required_keys") or ()
    if required:
        if not isinstance(value, Mapping):
            return EvalResult(
                "invalid", f"{which} is JSON but not an object (required keys {list(required)})"
            )
        missing = [k for k in required if k not in value]
        if missing:
            return EvalResult("invalid", f"{which} is JSON but lacks key(s) {', '.join(map(repr, missing))}")
    return EvalResult("valid", f"{which} is valid JSON")


def _keyword_presence(fact: Fact, options: Mapping[str, Any], comparer: Comparer | None) -> EvalResult:
    raw = _required(options, "keywords", "keyword_presence")
    keywords = [raw] if isinstance(raw, str) else [str(k) for k in raw]
    if not keywords:
        raise ValueError("evaluation 'keyword_presence' needs at least one keyword")
    mode = options.get("mode", "all")
    if mode not in ("all", "any"):
        raise ValueError(f"option mode must be 'all' or 'any', got {mode!r}")
    which, _value = _field(fact, options)
    text = fact.text(which)
    if not options.get("case_sensitive", False):
        found = [k for k in keywords if k.casefold() in text.casefold()]
    else:
        found = [k for k in keywords if k in text]
    missing = [k for k in keywords if k not in found]
    ok = not missing if mode == "all" else bool(found)
    why = f"found {found or 'none'}" + (f", missing {missing}" if missing else "") + f" (mode {mode!r})"
    return EvalResult("present" if ok else "absent", why)


BuiltinEval = Callable[[Fact, Mapping[str, Any], Comparer | None], EvalResult]

#: name -> (labels, function) of the evaluations that run without a model
BUILTIN_EVALS: dict[str, tuple[tuple[str, ...], BuiltinEval]] = {
    "exact_match": (("match", "no_match"), _exact_match),
    "regex_match": (("match", "no_match"), _regex_match),
    "json_validity": (("valid", "invalid"), _json_validity),
    "keyword_presence": (("present", "absent"), _keyword_presence),
}


# -- templates ------------------------------------------------------------------------------------------

_PLACEHOLDERS = ("{input}", "{output}", "{context}")


@dataclass(frozen=True)
class Template:
    """An LLM-judge evaluation: a prompt and the labels the judge chooses from."""

    name: str
    prompt: str
    labels: tuple[str, ...]

    def render(self, fact: Fact) -> str:
        """The prompt for one fact: placeholders filled, or the fact appended when there are none."""
        values = {
            "{input}": fact.text("input") or "(not recorded)",
            "{output}": fact.text("output") or "(not recorded)",
            "{context}": "\n".join(fact.context) or "(none)",
        }
        if any(p in self.prompt for p in _PLACEHOLDERS):
            out = self.prompt
            for key, value in values.items():
                out = out.replace(key, value)
            return out
        parts = [self.prompt.rstrip(), f"Input:\n<input>\n{values['{input}']}\n</input>"]
        parts.append(f"Output:\n<output>\n{values['{output}']}\n</output>")
        if fact.context:
            parts.append(f"Context:\n<context>\n{values['{context}']}\n</context>")
        return "\n\n".join(parts)


def template_from_dict(data: Any, source: str = "template") -> Template:
    """A Template from ``{"name", "prompt" | "eval_prompt", "labels" | "structure_output.label.enums"}``
    (optionally wrapped as ``{"template": {...}}``)."""
    if isinstance(data, Mapping) and set(data) == {"template"}:
        data = data["template"]
    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a template is a JSON object, got {type(data).__name__}")
    prompt = data.get("prompt", data.get("eval_prompt"))
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError(f"{source}: the template needs a non-empty 'prompt' (or 'eval_prompt')")
    labels = data.get("labels")
    if labels is None:
        structure = data.get("structure_output")
        label = structure.get("label") if isinstance(structure, Mapping) else None
        labels = label.get("enums") if isinstance(label, Mapping) else None
    if (
        not isinstance(labels, list | tuple)
        or not labels
        or not all(isinstance(x, str) and x for x in labels)
    ):
        raise ValueError(
            f"{source}: the template needs 'labels' (or structure_output.label.enums): non-empty strings"
        )
    name = data.get("name") or "custom_eval"
    return Template(str(name), prompt, tuple(labels))


def load_template(
    template: Mapping[str, Any] | None, template_path: str | os.PathLike[str] | None
) -> Template:
    """The template given inline or in a JSON file (ValueError / FileNotFoundError when unusable)."""
    if template_path is not None:
        path = os.fspath(template_path)
        with open(path, encoding="utf-8") as fh:
            try:
                data = json.load(fh)
            except ValueError as exc:
                raise ValueError(f"template file {path} is not valid JSON: {exc}") from None
        return template_from_dict(data, path)
    return template_from_dict(template)


# -- evaluators -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    """What ``with_evaluation`` set: the evaluator (None: built-in evaluations only) and its options."""

    evaluator: Any = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def judge(self) -> Judge | None:
        return self.evaluator if isinstance(self.evaluator, Judge) else None


_BUILTIN_NAMES = ("builtin", "default", "traceassert")


def make_evaluation(evaluator: Any, eval_options: Mapping[str, Any] | None = None) -> Evaluation:
    """Check and wrap ``with_evaluation``'s arguments."""
    if eval_options is not None and not isinstance(eval_options, Mapping):
        raise TypeError(f"eval_options must be a mapping, got {type(eval_options).__name__}")
    options = dict(eval_options or {})
    if evaluator is None or (isinstance(evaluator, str) and evaluator in _BUILTIN_NAMES):
        return Evaluation(None, options)
    if isinstance(evaluator, Judge) or callable(getattr(evaluator, "evaluate", None)):
        return Evaluation(evaluator, options)
    if isinstance(evaluator, str):
        raise ValueError(
            f"unknown evaluator {evaluator!r}: traceassert evaluates offline; use 'builtin' (exact_match, "
            "regex_match, json_validity, keyword_presence), ta.Judge(fn) with your own LLM client, or an "
            "object with evaluate(eval_name, fact, options)"
        )
    if callable(evaluator):
        return Evaluation(Judge(evaluator), options)
    raise TypeError(
        "an evaluator is 'builtin', a ta.Judge, a function prompt -> reply or an object with "
        f"evaluate(), got {evaluator!r}"
    )


def labels_for(
    evaluation: Evaluation | None, eval_name: str, template: Template | None
) -> tuple[str, ...] | None:
    """The labels the evaluation can give (None when a custom evaluator decides); ValueError when no
    evaluator can run it."""
    if template is not None:
        return template.labels
    if eval_name in BUILTIN_EVALS:
        return BUILTIN_EVALS[eval_name][0]
    evaluator = evaluation.evaluator if evaluation is not None else None
    if evaluator is not None and not isinstance(evaluator, Judge):
        return None
    if eval_name in JUDGE_TEMPLATES:
        if evaluator is None:
            raise ValueError(
                f"evaluation {eval_name!r} is judged by an LLM: call with_evaluation(ta.Judge(fn)) first, "
                "fn being your model client (prompt -> reply)"
            )
        return tuple(JUDGE_TEMPLATES[eval_name]["labels"])
    known = sorted({*BUILTIN_EVALS, *JUDGE_TEMPLATES})
    raise ValueError(
        f"unknown evaluation {eval_name!r}; known: {', '.join(known)} (or pass template=/template_path=)"
    )


def evaluate_fact(
    evaluation: Evaluation | None,
    eval_name: str,
    template: Template | None,
    fact: Fact,
    options: Mapping[str, Any],
    comparer: Comparer | None,
) -> EvalResult:
    """Run one evaluation on one fact."""
    if template is None and eval_name in BUILTIN_EVALS:
        return BUILTIN_EVALS[eval_name][1](fact, options, comparer)
    evaluator = evaluation.evaluator if evaluation is not None else None
    if evaluator is not None and not isinstance(evaluator, Judge):
        opts = dict(options)
        if template is not None:
            opts["template"] = template
        return _coerce(evaluator.evaluate(eval_name, fact, opts), evaluator)
    if template is None:
        spec = JUDGE_TEMPLATES[eval_name]
        template = Template(eval_name, spec["prompt"], tuple(spec["labels"]))
    if not isinstance(evaluator, Judge):
        raise ValueError(
            f"evaluation {template.name!r} is a judge template: call with_evaluation(ta.Judge(fn)) first"
        )
    label, explanation = evaluator.classify(template.render(fact), template.labels)
    return EvalResult(label, explanation)


def _coerce(result: Any, evaluator: Any) -> EvalResult:
    if isinstance(result, EvalResult):
        return result
    if isinstance(result, str):
        return EvalResult(result)
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str):
        return EvalResult(result[0], str(result[1]))
    raise TypeError(
        f"evaluator {evaluator!r} returned {result!r}; return an EvalResult, a label or (label, explanation)"
    )
