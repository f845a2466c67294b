import type { Stream } from "node:stream";

const MAX_CHARS = 4_000;
const MAX_LINES = 20;

/** Keeps the last lines a child process wrote to stderr, for error messages. */
export class StderrTail {
  #buffer = "";
  #ended = false;
  readonly #waiters: Array<() => void> = [];

  /** Starts collecting from a stream; call before the process starts so nothing is lost. */
  attach(stream: Stream | null): void {
    if (stream === null) {
      this.#end();
      return;
    }
    stream.on("data", (chunk: Buffer | string) => {
      this.#buffer = (this.#buffer + chunk.toString()).slice(-MAX_CHARS);
    });
    stream.on("end", () => this.#end());
    stream.on("close", () => this.#end());
    stream.on("error", () => this.#end());
  }

  /** The last lines written, trimmed; empty when nothing was written. */
  text(): string {
    return this.#buffer.trimEnd().split("\n").slice(-MAX_LINES).join("\n");
  }

  /** Resolves once the stream ended, or after `ms` at the latest. */
  async settled(ms: number): Promise<void> {
    if (this.#ended) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await new Promise<void>((resolve) => {
      this.#waiters.push(resolve);
      timer = setTimeout(resolve, ms);
    });
    clearTimeout(timer);
  }

  #end(): void {
    this.#ended = true;
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
