import type { ChildOutcome, ChildRole } from "@arbor/orchestration";

/** A tool call as the transcript shows it. */
export interface ToolCallView {
  id: string;
  name: string;
  /** `running` until its result arrives. */
  status: "running" | "done" | "error";
}

/** One thing the transcript shows. */
export type TranscriptItem =
  | { kind: "user"; id: string; text: string }
  | {
      kind: "assistant";
      id: string;
      text: string;
      thinking: string;
      tools: ToolCallView[];
      status: "streaming" | "done" | "aborted";
      /** The agent path of the agent answering (`front-desk:tech`), when an agent file runs. */
      agent?: string;
    }
  | { kind: "notice"; id: string; text: string; tone: "info" | "warning" | "error" }
  /** An extension's message that asked to be displayed (`custom_message`, `display: true`). */
  | { kind: "custom"; id: string; customType: string; text: string }
  /**
   * A child run of an agent file (advisor consulted, request routed to a destination,
   * handoff, sub-agent call): started, then its outcome, tokens and cost.
   */
  | {
      kind: "child";
      id: string;
      childSessionId: string;
      /** One of {@link ChildRole}, or a word a newer writer added. */
      role: string;
      agentPath: string;
      /** One of {@link ChildOutcome}, or a word a newer writer added. */
      outcome: string;
      /** Why it failed, was aborted or interrupted. */
      message?: string;
      /** Tokens in and out of the child's own run, once it ended. */
      tokens?: number;
      cost?: number;
      /**
       * A destination's or handoff's answer, read from its own session when the transcript
       * is shown from the stored session (while a run streams, its answer shows as it arrives).
       */
      answer?: string;
    };
