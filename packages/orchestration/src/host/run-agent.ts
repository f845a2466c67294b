import type { ExtensionRunner } from "@arbor/extensions-api";
import type { SessionStore } from "@arbor/session-store";
import type { TtsrRule } from "@arbor/ttsr";
import type { AgentTool } from "@arbor/turn-runner";
import type { AgentDefinition } from "../definition/index.js";
import type {
  AgentNode,
  AgentTreeLimits,
  NonceSource,
  OrchestrationResult,
  RunEvent,
} from "../orchestration/index.js";
import { AgentHost } from "./agent-host.js";
import type { AgentHostOptions, HostAgentOptions } from "./host-options.js";

/** Options of {@link runAgent}: where the sessions go, the models, the app's tools. */
export type RunAgentOptions = (
  | { store: SessionStore; sessionDir?: undefined }
  | { sessionDir: string; store?: undefined }
) & {
  /** How model targets become models (provider settings, or a function for tests). */
  models: AgentHostOptions["models"];
  /** The app's tools; each agent's `tools` picks among them. */
  tools?: readonly AgentTool[];
  /** The tenant every session of the run is created for. */
  tenant?: string;
  /** The working directory recorded in new sessions. Default `/`. */
  cwd?: string;
  /**
   * Continue the root session with this id instead of creating one. Children it recorded
   * as running (the process died) are first recorded as `interrupted`.
   */
  sessionId?: string;
  /** Aborts the whole run, every running child included. */
  signal?: AbortSignal;
  limits?: AgentTreeLimits;
  /** Turn-runner options for every agent of the run (seams, compaction, telemetry, …). */
  agentOptions?: HostAgentOptions;
  /** The app's stream rules, added to every agent's own. */
  rules?: readonly TtsrRule[];
  /** Extensions of the root agent only (children run without them). */
  extensions?: ExtensionRunner;
  /** The nonce of each tagged prompt block; a seam for tests. */
  generateNonce?: NonceSource;
};

/** A started one-shot run: its events, its result, and its controls. */
export interface OrchestrationRun {
  /** Every event from the first, for one reader (subscribed when the run started). */
  readonly events: AsyncIterable<RunEvent>;
  /** Resolves once the run and every child ended; rejects for an agent that cannot open. */
  readonly result: Promise<OrchestrationResult>;
  /** Another reader of every event from the first. */
  subscribe(): AsyncIterable<RunEvent>;
  /** Asks every running agent, children included, to finish with one final turn; no new child starts. */
  stop(): void;
  /** Ends every running agent, children included, at once. */
  abort(): void;
}

/**
 * Runs one prompt on an agent — with its advisors, router destinations, handoff and
 * sub-agents — and closes it: a one-shot {@link AgentHost} (open, prompt, close) on a new
 * session of the store, or on `sessionId`.
 * @param agent - a loaded agent tree ({@link loadAgentTree}), or a definition (the files it
 *   names are loaded first)
 * @example
 * ```ts
 * const run = runAgent(await loadAgentTree("agents/main.md"), "Plan the release", {
 *   sessionDir: ".arbor/sessions",
 *   models: { providers: { openai: { api: "openai-chat", apiKey } } },
 * });
 * for await (const event of run.events) {
 *   if (event.type === "child_start") console.log("→", event.agentPath);
 *   if (event.type === "text_delta") process.stdout.write(event.delta);
 * }
 * const result = await run.result; // { success, finalAgent, children, usage, cost, … }
 * ```
 */
export function runAgent(
  agent: AgentDefinition | AgentNode,
  prompt: string,
  options: RunAgentOptions,
): OrchestrationRun {
  const { sessionId, cwd, signal, ...rest } = options;
  const control = { stopped: false, aborted: signal?.aborted === true };
  const started = AgentHost.open({
    ...rest,
    agent,
    ...(sessionId !== undefined
      ? { sessionId }
      : {
          create: {
            cwd: cwd ?? "/",
            ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
          },
        }),
  } as AgentHostOptions).then((host) => {
    const run = host.prompt(prompt);
    if (control.aborted) run.abort();
    else if (control.stopped) run.stop();
    return { host, run };
  });
  const onAbort = () => {
    control.aborted = true;
    void started.then(
      ({ run }) => run.abort(),
      () => undefined,
    );
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const result = started
    .then(async ({ host, run }) => {
      try {
        return await run.result;
      } finally {
        await host.close();
      }
    })
    .finally(() => signal?.removeEventListener("abort", onAbort));
  const subscribe = (): AsyncIterable<RunEvent> => ({
    async *[Symbol.asyncIterator]() {
      // An agent that cannot open ends the stream; `result` rejects with why.
      const opened = await started.catch(() => undefined);
      if (opened) yield* opened.run.subscribe();
    },
  });
  return {
    events: subscribe(),
    result,
    subscribe,
    stop: () => {
      control.stopped = true;
      void started.then(
        ({ run }) => run.stop(),
        () => undefined,
      );
    },
    abort: onAbort,
  };
}
