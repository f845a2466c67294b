import type { AgentSessionOptions } from "@arbor/turn-runner";
import type { NonceSource } from "./tagged-blocks.js";

/** The default depth limit: children, grandchildren and great-grandchildren of the root. */
export const DEFAULT_MAX_DEPTH = 3;

/** The default number of sub-agent calls of one agent that run at the same time. */
export const DEFAULT_CHILD_CONCURRENCY = 4;

/** How far an agent tree's run may go. */
export interface AgentTreeLimits {
  /** How deep children may nest below the root (the root is depth 0). Default 3. */
  depth?: number;
  /** Sub-agent calls of one agent running at once; more wait. Default 4. */
  concurrency?: number;
}

/** What the run of an agent tree needs beside its agents: limits, tenant, telemetry, seams. */
export interface TreeOptions {
  /** The tenant every child session is created for. */
  tenant?: string;
  /** The telemetry of the root's runs; each child's spans start below its parent's. */
  telemetry?: AgentSessionOptions["telemetry"];
  limits?: AgentTreeLimits;
  /** The nonce of each tagged prompt block; a seam for tests. */
  generateNonce?: NonceSource;
}
