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
    }
  | { kind: "notice"; id: string; text: string; tone: "info" | "warning" | "error" }
  /** An extension's message that asked to be displayed (`custom_message`, `display: true`). */
  | { kind: "custom"; id: string; customType: string; text: string };
