"""Token counts beyond input and output that a model call's spans may record: tokens read from the prompt
cache and reasoning tokens. Read on demand (``ModelCall.cache_read_tokens``, ``.reasoning_tokens``).

The keys (``DETAIL_KEYS``; the first one present wins, innermost span first, as for the other counts):

- cache read: ``gen_ai.usage.cache_read.input_tokens`` (GenAI conventions; Pydantic AI, OpenLLMetry 0.5+,
  Strands), ``gen_ai.usage.cache_read_input_tokens`` (earlier GenAI conventions and OpenLLMetry),
  ``llm.token_count.prompt_details.cache_read`` (OpenInference), ``gen_ai.usage.details.cache_read_tokens``
  (Pydantic AI), ``ai.usage.cachedInputTokens`` and ``ai.usage.inputTokenDetails.cacheReadTokens``
  (Vercel AI SDK);
- reasoning: ``gen_ai.usage.reasoning.output_tokens`` (GenAI conventions), ``gen_ai.usage.reasoning_tokens``
  and ``llm.usage.reasoning_tokens`` (OpenLLMetry), ``llm.token_count.completion_details.reasoning``
  (OpenInference), ``gen_ai.usage.details.reasoning_tokens`` (Pydantic AI), ``ai.usage.reasoningTokens``
  and ``ai.usage.outputTokenDetails.reasoningTokens`` (Vercel AI SDK).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from .._common.jsonvalue import as_int
from .span import Span

__all__ = ["DETAIL_KEYS", "Detail", "usage_detail"]

Detail = Literal["cache_read", "reasoning"]

DETAIL_KEYS: dict[Detail, tuple[str, ...]] = {
    "cache_read": (
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_read_input_tokens",
        "llm.token_count.prompt_details.cache_read",
        "gen_ai.usage.details.cache_read_tokens",
        "ai.usage.cachedInputTokens",
        "ai.usage.inputTokenDetails.cacheReadTokens",
    ),
    "reasoning": (
        "gen_ai.usage.reasoning.output_tokens",
        "gen_ai.usage.reasoning_tokens",
        "llm.usage.reasoning_tokens",
        "llm.token_count.completion_details.reasoning",
        "gen_ai.usage.details.reasoning_tokens",
        "ai.usage.reasoningTokens",
        "ai.usage.outputTokenDetails.reasoningTokens",
    ),
}


def usage_detail(spans: Sequence[Span], detail: Detail) -> int | None:
    """The ``detail`` count the spans of one model call record (outermost first, as ``ModelCall.spans``
    holds them: the innermost that records it wins); None when none does."""
    keys = DETAIL_KEYS[detail]
    for span in reversed(spans):
        attrs = span.attributes
        for key in keys:
            if key in attrs:
                value = as_int(attrs[key])
                if value is not None:
                    return value
    return None
