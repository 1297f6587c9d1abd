"""GenAI semantic-convention attribute keys, taken from ``opentelemetry-semantic-conventions``.

The package marks its ``gen_ai`` constants as deprecated (they moved to a separate GenAI conventions
repository); this is the one place that imports them, with any deprecation warning kept from users.
Keys the installed package does not have fall back to their literal names.
"""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any

_g: ModuleType | None
_err: ModuleType | None
_exc: ModuleType | None

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        from opentelemetry.semconv._incubating.attributes import gen_ai_attributes

        _g = gen_ai_attributes
    except ImportError:  # pragma: no cover - very old semantic-conventions releases
        _g = None
    try:
        from opentelemetry.semconv.attributes import error_attributes, exception_attributes

        _err, _exc = error_attributes, exception_attributes
    except ImportError:  # pragma: no cover
        _err = _exc = None


def _key(module: Any, constant: str, literal: str) -> str:
    value = getattr(module, constant, None) if module is not None else None
    return value if isinstance(value, str) else literal


OPERATION_NAME = _key(_g, "GEN_AI_OPERATION_NAME", "gen_ai.operation.name")
AGENT_NAME = _key(_g, "GEN_AI_AGENT_NAME", "gen_ai.agent.name")
AGENT_ID = _key(_g, "GEN_AI_AGENT_ID", "gen_ai.agent.id")
WORKFLOW_NAME = _key(_g, "GEN_AI_WORKFLOW_NAME", "gen_ai.workflow.name")
TOOL_NAME = _key(_g, "GEN_AI_TOOL_NAME", "gen_ai.tool.name")
TOOL_CALL_ID = _key(_g, "GEN_AI_TOOL_CALL_ID", "gen_ai.tool.call.id")
TOOL_CALL_ARGUMENTS = _key(_g, "GEN_AI_TOOL_CALL_ARGUMENTS", "gen_ai.tool.call.arguments")
TOOL_CALL_RESULT = _key(_g, "GEN_AI_TOOL_CALL_RESULT", "gen_ai.tool.call.result")
REQUEST_MODEL = _key(_g, "GEN_AI_REQUEST_MODEL", "gen_ai.request.model")
RESPONSE_MODEL = _key(_g, "GEN_AI_RESPONSE_MODEL", "gen_ai.response.model")
REQUEST_STREAM = _key(_g, "GEN_AI_REQUEST_STREAM", "gen_ai.request.stream")
PROVIDER_NAME = _key(_g, "GEN_AI_PROVIDER_NAME", "gen_ai.provider.name")
SYSTEM = _key(_g, "GEN_AI_SYSTEM", "gen_ai.system")
USAGE_INPUT_TOKENS = _key(_g, "GEN_AI_USAGE_INPUT_TOKENS", "gen_ai.usage.input_tokens")
USAGE_OUTPUT_TOKENS = _key(_g, "GEN_AI_USAGE_OUTPUT_TOKENS", "gen_ai.usage.output_tokens")
USAGE_PROMPT_TOKENS = _key(_g, "GEN_AI_USAGE_PROMPT_TOKENS", "gen_ai.usage.prompt_tokens")
USAGE_COMPLETION_TOKENS = _key(_g, "GEN_AI_USAGE_COMPLETION_TOKENS", "gen_ai.usage.completion_tokens")
USAGE_TOTAL_TOKENS = "gen_ai.usage.total_tokens"
RESPONSE_FINISH_REASONS = _key(_g, "GEN_AI_RESPONSE_FINISH_REASONS", "gen_ai.response.finish_reasons")
#: the singular form some producers write (OpenLLMetry's semconv_ai names it, for one choice)
RESPONSE_FINISH_REASON = "gen_ai.response.finish_reason"
CONVERSATION_ID = _key(_g, "GEN_AI_CONVERSATION_ID", "gen_ai.conversation.id")
INPUT_MESSAGES = _key(_g, "GEN_AI_INPUT_MESSAGES", "gen_ai.input.messages")
OUTPUT_MESSAGES = _key(_g, "GEN_AI_OUTPUT_MESSAGES", "gen_ai.output.messages")
SYSTEM_INSTRUCTIONS = _key(_g, "GEN_AI_SYSTEM_INSTRUCTIONS", "gen_ai.system_instructions")
PROMPT = _key(_g, "GEN_AI_PROMPT", "gen_ai.prompt")
COMPLETION = _key(_g, "GEN_AI_COMPLETION", "gen_ai.completion")
RETRIEVAL_QUERY_TEXT = _key(_g, "GEN_AI_RETRIEVAL_QUERY_TEXT", "gen_ai.retrieval.query.text")
RETRIEVAL_DOCUMENTS = _key(_g, "GEN_AI_RETRIEVAL_DOCUMENTS", "gen_ai.retrieval.documents")
ERROR_TYPE = _key(_err, "ERROR_TYPE", "error.type")
EXCEPTION_TYPE = _key(_exc, "EXCEPTION_TYPE", "exception.type")
EXCEPTION_MESSAGE = _key(_exc, "EXCEPTION_MESSAGE", "exception.message")

# operation names (gen_ai.operation.name values)
OP_INVOKE_AGENT = "invoke_agent"
OP_CREATE_AGENT = "create_agent"
OP_EXECUTE_TOOL = "execute_tool"
OP_INVOKE_WORKFLOW = "invoke_workflow"
OP_RETRIEVAL = "retrieval"
#: a handoff between agents (OpenLLMetry's OpenAI Agents instrumentation)
OP_AGENT_HANDOFF = "agent_handoff"
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content", "embeddings"})
