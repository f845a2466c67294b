import type { ExtensionRunner } from "@arbor/extensions-api";
import type { SessionStore } from "@arbor/session-store";
import type { TtsrRule } from "@arbor/ttsr";
import type { AgentTool } from "@arbor/turn-runner";
import type { AgentHostOptions, HostAgentOptions } from "../host/index.js";
import type { NonceSource } from "./tagged-blocks.js";

/** The default depth limit: children, grandchildren and great-grandchildren of the root. */
export const DEFAULT_MAX_DEPTH = 3;

/** The default number of sub-agent calls of one agent that run at the same time. */
export const DEFAULT_CHILD_CONCURRENCY = 4;

/** How far an orchestration may go. */
export interface RunAgentLimits {
  /** How deep children may nest below the root (the root is depth 0). Default 3. */
  depth?: number;
  /** Sub-agent calls of one agent running at once; more wait. Default 4. */
  concurrency?: number;
}

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
  limits?: RunAgentLimits;
  /** Turn-runner options for every agent of the run (seams, compaction, telemetry, …). */
  agentOptions?: HostAgentOptions;
  /** The app's stream rules, added to every agent's own. */
  rules?: readonly TtsrRule[];
  /** Extensions of the root agent only (children run without them). */
  extensions?: ExtensionRunner;
  /** The nonce of each tagged prompt block; a seam for tests. */
  generateNonce?: NonceSource;
};
