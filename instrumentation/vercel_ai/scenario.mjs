// The shared scenario (instrumentation/_scenario.py) on the Vercel AI SDK: `generateText` with three tools
// on the SDK's own MockLanguageModelV3 (`ai/test`), `ask_helper` running a nested `generateText`, with the
// SDK's `experimental_telemetry` spans. record.mjs writes them to a file, export.mjs exports them over OTLP.
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

/** Run the scenario of `script` (as instrumentation/_scenario.py writes it); the generateText result. */
export async function runScenario(script) {
  /** A scripted MockLanguageModelV3: its n-th call plays the n-th turn. */
  function scriptedModel(modelId, turns) {
    let calls = 0;
    return new MockLanguageModelV3({
      provider: 'scripted',
      modelId,
      doGenerate: async () => {
        const index = calls++;
        const turn = turns[index];
        if (turn === undefined) {
          throw new Error(`the script has only ${turns.length} model calls`);
        }
        const content = turn.tool
          ? [
              {
                type: 'tool-call',
                toolCallId: `call_${index}_${turn.tool}`,
                toolName: turn.tool,
                input: JSON.stringify(turn.args),
              },
            ]
          : [{ type: 'text', text: turn.text }];
        return {
          content,
          finishReason: { unified: turn.tool ? 'tool-calls' : 'stop', raw: undefined },
          usage: {
            inputTokens: { total: turn.input_tokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: turn.output_tokens, text: undefined, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
  }

  /** `experimental_telemetry` of an agent: its functionId names it; metadata repeats it. */
  function telemetry(agent) {
    return { isEnabled: true, functionId: agent, metadata: { agent } };
  }

  async function runHelper(question) {
    const result = await generateText({
      model: scriptedModel(script.helper_model, script.helper_turns),
      system: script.helper_instructions,
      prompt: question,
      experimental_telemetry: telemetry('helper'),
    });
    return result.text;
  }

  const tools = {
    get_weather: tool({
      description: 'Current weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => `Sunny, 21C in ${city}`,
    }),
    explode: tool({
      description: 'Always fails.',
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error(script.explode_message);
      },
    }),
    ask_helper: tool({
      description: 'Ask the helper agent.',
      inputSchema: z.object({ question: z.string() }),
      execute: async ({ question }) => runHelper(question),
    }),
  };

  return generateText({
    model: scriptedModel(script.orchestrator_model, script.orchestrator_turns),
    system: script.orchestrator_instructions,
    prompt: script.prompt,
    tools,
    stopWhen: stepCountIs(10),
    experimental_telemetry: telemetry('orchestrator'),
  });
}
