import type { AgentDefinition, AgentHostOptions, AgentNode } from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import type { ApiKeyStore } from "./auth/api-key-schema.js";
import type { ServerLimits } from "./config/limits.js";
import type { ServerExtensions } from "./extensions/server-extensions.js";
import type { HeadendSettings } from "./headends/headend-settings.js";
import type { RunControl } from "./runs/run-control.js";
import type { RunEventLog } from "./runs/run-event-log.js";

/** Everything the HTTP application works with, made by the caller (the bin or a test). */
export interface AppDeps {
  /** Reported by `/health`. */
  version: string;
  store: SessionStore;
  keys: ApiKeyStore;
  log: RunEventLog;
  runs: RunControl;
  /** The agents clients may name, and how their targets become models. */
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  models: AgentHostOptions["models"];
  /** The agents' extensions (their commands); none when absent. */
  extensions?: ServerExtensions | undefined;
  limits: ServerLimits;
  /** The admin key; admin routes answer 401 without one. */
  adminKey?: string | undefined;
  /** The headends offered beside the native API; all when absent. */
  headends?: HeadendSettings | undefined;
  /** Origins allowed by CORS; off when absent. */
  corsOrigins?: readonly string[] | undefined;
  /** Checks the store can be reached (for `/ready`). */
  ready?: () => Promise<void>;
  /** Where internal failures are reported (never to clients). */
  reportError?: (error: unknown) => void;
}
