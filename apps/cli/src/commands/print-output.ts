import type { RunEvent } from "@arbor/orchestration";

/** How print mode writes a run: the answer text, one JSON object, or one JSON event per line. */
export type OutputFormat = "text" | "json" | "stream-json";

/** The output formats print mode knows. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];

/**
 * The answer text of a run for print mode's `text` format, released only once accepted:
 * an answer is held while it streams and written when its turn ends, so an attempt that a
 * stream rule interrupts, a provider error retries or the runner rejects never reaches
 * stdout: only the answer that replaced it does.
 */
export class AcceptedText {
  /** Text of the attempt streaming now. */
  #streaming = "";
  /** Text of finished messages of this turn, not yet written. */
  #finished = "";
  /** Whether anything was written and whether it ended with a line break. */
  #wroteAny = false;
  #endedWithNewline = true;

  /**
   * Takes the next event of the run.
   * @returns the text to write now ("" for nothing)
   */
  take(event: RunEvent): string {
    switch (event.type) {
      case "text_delta":
        this.#streaming += event.delta;
        return "";
      case "message_end":
        this.#finished += this.#streaming;
        this.#streaming = "";
        return "";
      case "retry":
      case "answer_rejected":
        this.#discard();
        return "";
      case "ttsr_triggered":
        if (event.interrupted) this.#discard();
        return "";
      case "turn_end":
      case "agent_end":
        return this.#release();
      default:
        return "";
    }
  }

  /** What is left when the run ends (a final line break after the last answer). */
  finish(): string {
    const rest = this.#release();
    const newline = this.#wroteAny && !(rest ? rest.endsWith("\n") : this.#endedWithNewline);
    return newline ? `${rest}\n` : rest;
  }

  #discard(): void {
    this.#streaming = "";
    this.#finished = "";
  }

  #release(): string {
    const text = this.#finished + this.#streaming;
    this.#finished = "";
    this.#streaming = "";
    if (text === "") return "";
    // Answers of successive turns (text before a tool call, then the final one) on lines of their own.
    const separator = this.#wroteAny && !this.#endedWithNewline ? "\n" : "";
    this.#wroteAny = true;
    this.#endedWithNewline = text.endsWith("\n");
    return separator + text;
  }
}
