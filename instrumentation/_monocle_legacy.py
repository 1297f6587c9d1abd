"""How ``tests/data/monocle_0_*.json`` were recorded: older monocle-apptrace releases, their own file
exporter, the scenario on a scripted HTTP transport (no network). Each recording needs a scratch
virtualenv of its own (the releases pin old OpenTelemetry and framework versions)::

    python3 -m venv .venv-monocle-old
    .venv-monocle-old/bin/pip install monocle-apptrace==0.5.3 langgraph langchain==1.5.2 \\
        langchain-openai openai==1.109.1 openai-agents==0.2.9 pytest
    .venv-monocle-old/bin/pip install --no-deps -e .
    python3 -m venv .venv-crewai-old
    .venv-crewai-old/bin/pip install monocle-apptrace==0.7.0 crewai==1.6.1 litellm pytest
    .venv-crewai-old/bin/pip install --no-deps -e .

    .venv-monocle-old/bin/python -m instrumentation._monocle_legacy langgraph OUT_DIR
    .venv-monocle-old/bin/python -m instrumentation._monocle_legacy openai_agents OUT_DIR
    .venv-crewai-old/bin/python -m instrumentation._monocle_legacy crewai OUT_DIR

Each writes one ``monocle_trace_*.json`` into ``OUT_DIR``: copy it to ``tests/data/`` as
``monocle_0_5_langgraph.json``, ``monocle_0_5_openai_agents.json`` or ``monocle_0_7_crewai.json``.

What the files show: 0.5 records a LangGraph tool's input as the list of its argument *values*, the
OpenAI client call inside LangChain's as ``inference.modelapi``, an OpenAI Agents SDK run as
``agentic.request`` with one ``agentic.invocation`` per turn of the agent loop; 0.7 records a CrewAI
tool's input as ``"input: {<the argument dict's repr>}"`` and CrewAI tasks as ``agentic.invocation``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import _scenario as sc

WORKFLOW = "traceassert-scenario"


def _setup(out_dir: str) -> Any:
    """An SDK provider as the global one, and Monocle writing files to ``out_dir``; return the provider."""
    os.environ["MONOCLE_TRACE_OUTPUT_PATH"] = out_dir
    from monocle_apptrace.instrumentation.common.instrumentor import setup_monocle_telemetry
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    trace.set_tracer_provider(provider)
    setup_monocle_telemetry(workflow_name=WORKFLOW, monocle_exporters_list="file")
    return provider


def _chat_completion(
    model: str, index: int, turn: sc.Turn, message: dict[str, Any], finish: str
) -> dict[str, Any]:
    usage = {"prompt_tokens": turn.input_tokens, "completion_tokens": turn.output_tokens}
    return {
        "id": f"chatcmpl-{model}-{index}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {**usage, "total_tokens": turn.total_tokens},
    }


def _tool_calls_reply(turns: Sequence[sc.Turn], model: str) -> Callable[[Any], Any]:
    """Chat Completions replies with native tool calls; the turn is the number of tool results sent."""
    import httpx

    def respond(request: Any) -> Any:
        body = json.loads(request.content)
        index = sum(1 for m in body["messages"] if m.get("role") == "tool")
        turn = sc.turn_at(turns, index)
        if turn.tool is None:
            message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        else:
            call = {"name": turn.tool, "arguments": turn.arguments_json()}
            tool_calls = [{"id": turn.call_id(index), "type": "function", "function": call}]
            message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
        finish = "stop" if turn.tool is None else "tool_calls"
        return httpx.Response(200, json=_chat_completion(model, index, turn, message, finish))

    return respond


def _react_reply(turns: Sequence[sc.Turn], model: str) -> Callable[[Any], Any]:
    """CrewAI's ReAct text format; the turn is the number of actions the model already took."""
    import httpx

    marker = "Thought: I should use a tool."

    def respond(request: Any) -> Any:
        body = json.loads(request.content)
        index = sum(
            str(m.get("content") or "").count(marker) for m in body["messages"] if m["role"] == "assistant"
        )
        turn = sc.turn_at(turns, index)
        if turn.tool is None:
            text = f"Thought: I now know the final answer\nFinal Answer: {turn.text}"
        else:
            text = f"{marker}\nAction: {turn.tool}\nAction Input: {turn.arguments_json()}"
        message = {"role": "assistant", "content": text}
        return httpx.Response(200, json=_chat_completion(model, index, turn, message, "stop"))

    return respond


def record_langgraph(out_dir: str) -> str:
    """monocle-apptrace 0.5: the LangGraph scenario on ``ChatOpenAI``."""
    import httpx

    provider = _setup(out_dir)
    from langchain_openai import ChatOpenAI

    from . import _langgraph_scenario as lg

    def model(turns: Sequence[sc.Turn], model_name: str) -> Any:
        client = httpx.Client(transport=httpx.MockTransport(_tool_calls_reply(turns, model_name)))
        return ChatOpenAI(
            model=model_name,
            api_key="test-key",
            base_url="http://scripted.invalid/v1",
            max_retries=0,
            http_client=client,
        )

    orchestrator, _ = lg.build_agents(model, form="dict")  # type: ignore[arg-type]
    output = lg.run(orchestrator, "dict")
    provider.shutdown()
    return output


def record_openai_agents(out_dir: str) -> str:
    """monocle-apptrace 0.5: the OpenAI Agents SDK (0.2.9) scenario; agents built after Monocle's setup,
    so that it wraps their tools."""
    import httpx

    provider = _setup(out_dir)
    from agents import RunConfig, Runner, function_tool

    from . import _openai_agents_scenario as oa

    @function_tool(failure_error_function=lambda ctx, error: f"Error: {error}")
    def explode() -> str:
        """A tool that always fails; the failure is reported back to the model."""
        raise RuntimeError(sc.EXPLODE_MESSAGE)

    client = oa.mock_client(
        httpx, response_id=lambda model, index: f"resp_{model}_{index}", created_at=1_700_000_000
    )
    orchestrator, _ = oa.build_agents(client, explode, lambda: RunConfig(tracing_disabled=True))
    output = str(
        Runner.run_sync(orchestrator, sc.PROMPT, run_config=RunConfig(tracing_disabled=True)).final_output
    )
    provider.shutdown()
    return output


def record_crewai(out_dir: str) -> str:
    """monocle-apptrace 0.7: the scenario as a CrewAI crew (1.6.1, ReAct on litellm)."""
    import httpx

    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    provider = _setup(out_dir)
    import litellm
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool

    routes: dict[str, Callable[[Any], Any]] = {}
    litellm.client_session = httpx.Client(
        transport=httpx.MockTransport(lambda request: routes[json.loads(request.content)["model"]](request))
    )

    def llm(turns: Sequence[sc.Turn], model: str) -> Any:
        routes[model] = _react_reply(turns, model)
        return LLM(model=f"openai/{model}", api_key="test-key", base_url="http://scripted.invalid/v1")

    @tool("get_weather")
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        return sc.get_weather(city)

    @tool("explode")
    def explode() -> str:
        """A tool that always fails."""
        raise RuntimeError(sc.EXPLODE_MESSAGE)

    helper = Agent(
        role="helper",
        goal="Give clothing advice.",
        backstory=sc.HELPER_INSTRUCTIONS,
        llm=llm(sc.HELPER_TURNS, sc.HELPER_MODEL),
    )

    @tool("ask_helper")
    def ask_helper(question: str) -> str:
        """Ask the helper agent for advice."""
        task = Task(description=question, expected_output="advice", agent=helper)
        return str(Crew(agents=[helper], tasks=[task]).kickoff().raw)

    orchestrator = Agent(
        role="orchestrator",
        goal="Answer weather questions.",
        backstory=sc.ORCHESTRATOR_INSTRUCTIONS,
        llm=llm(sc.ORCHESTRATOR_TURNS, sc.ORCHESTRATOR_MODEL),
        tools=[get_weather, explode, ask_helper],
    )
    task = Task(description=sc.PROMPT, expected_output="an answer", agent=orchestrator)
    output = str(Crew(agents=[orchestrator], tasks=[task]).kickoff().raw)
    provider.shutdown()
    return output


if __name__ == "__main__":
    which, out = sys.argv[1], sys.argv[2]
    recorders = {
        "langgraph": record_langgraph,
        "openai_agents": record_openai_agents,
        "crewai": record_crewai,
    }
    print(recorders[which](out))
