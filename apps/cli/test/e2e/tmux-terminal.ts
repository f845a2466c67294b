import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built binary the end-to-end tests run (turbo builds it before `test`). */
export const ARBOR_BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));

/** The private tmux server socket of this test process, removed by {@link TmuxTerminal.shutdown}. */
const SOCKET = join(tmpdir(), `arbor-e2e-${process.pid}.sock`);

/** Marks the line the shell prints when `arbor` exits: `__ARBOR_EXIT__<code>`. */
export const EXIT_MARKER = "__ARBOR_EXIT__";

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** Options of {@link TmuxTerminal.start}. */
export interface TerminalOptions {
  cwd: string;
  /** The whole environment of `arbor` besides PATH (nothing else leaks in from the test run). */
  env: Record<string, string>;
  args?: readonly string[];
  width?: number;
  height?: number;
}

/**
 * A real terminal: `arbor` running in a detached tmux session on a private server socket,
 * driven with `send-keys` and read with `capture-pane`.
 */
export class TmuxTerminal {
  private constructor(private readonly name: string) {}

  /** Stops this process's tmux server and removes its socket. */
  static shutdown(): void {
    try {
      execFileSync("tmux", ["-S", SOCKET, "kill-server"], { stdio: "ignore" });
    } catch {
      // no server was running
    }
    rmSync(SOCKET, { force: true });
  }

  /** Starts `node dist/bin.js …` in a new tmux session. */
  static start(options: TerminalOptions): TmuxTerminal {
    if (!existsSync(ARBOR_BIN)) {
      throw new Error(`${ARBOR_BIN} is missing; run "pnpm --filter @arbor/cli build" first`);
    }
    const name = `t${Math.random().toString(36).slice(2, 10)}`;
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      TERM: "xterm-256color",
      ...options.env,
    };
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${shellQuote(value)}`);
    const command = [
      "env -i",
      ...assignments,
      shellQuote(process.execPath),
      shellQuote(ARBOR_BIN),
      ...(options.args ?? []).map(shellQuote),
      `; echo ${EXIT_MARKER}$?; sleep 600`,
    ].join(" ");
    const args = [
      "-S",
      SOCKET,
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(options.width ?? 110),
      "-y",
      String(options.height ?? 45),
      "-c",
      options.cwd,
      command,
    ];
    try {
      execFileSync("tmux", args, { stdio: "pipe" });
    } catch {
      // The server of the previous test may still be exiting; a new one starts on retry.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      execFileSync("tmux", args, { stdio: "pipe" });
    }
    // Keep the server up between tests; shutdown() stops it.
    execFileSync("tmux", ["-S", SOCKET, "set-option", "-g", "exit-empty", "off"], {
      stdio: "ignore",
    });
    return new TmuxTerminal(name);
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-S", SOCKET, ...args], { encoding: "utf8" });
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    this.tmux("send-keys", "-t", this.name, "-l", text);
  }

  /** Presses keys by tmux name: `Enter`, `Escape`, `Up`, `Tab`, `C-c`. */
  press(...keys: string[]): void {
    this.tmux("send-keys", "-t", this.name, ...keys);
  }

  /** Sends raw bytes in one write (several keys arriving in one read). */
  sendBytes(text: string): void {
    const hex = [...Buffer.from(text, "utf8")].map((byte) => byte.toString(16).padStart(2, "0"));
    this.tmux("send-keys", "-t", this.name, "-H", ...hex);
  }

  /** Pastes text as a terminal does, inside bracketed-paste markers when the app asked for them. */
  paste(text: string): void {
    this.tmux("set-buffer", "-b", "arbor-paste", "--", text);
    this.tmux("paste-buffer", "-p", "-d", "-b", "arbor-paste", "-t", this.name);
  }

  /** The visible screen as text. */
  screen(): string {
    return this.tmux("capture-pane", "-p", "-t", this.name);
  }

  /**
   * Waits until the screen matches, polling every 50 ms.
   * @throws Error with the last screen when it does not match within `timeoutMs`
   */
  async waitFor(
    expected: string | RegExp | ((screen: string) => boolean),
    timeoutMs = 30_000,
  ): Promise<string> {
    const matches = (screen: string) =>
      typeof expected === "string"
        ? screen.includes(expected)
        : expected instanceof RegExp
          ? expected.test(screen)
          : expected(screen);
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      last = this.screen();
      if (matches(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the terminal never showed ${String(expected)}; last screen:\n${last}`);
  }

  /** The pane's title, which an OSC 0/2 sequence printed raw would change. */
  title(): string {
    return this.tmux("display-message", "-p", "-t", this.name, "#{pane_title}").trim();
  }

  /** Waits for `arbor` to exit and returns its exit code. */
  async exitCode(timeoutMs = 30_000): Promise<number> {
    const screen = await this.waitFor(new RegExp(`${EXIT_MARKER}\\d+`), timeoutMs);
    return Number(new RegExp(`${EXIT_MARKER}(\\d+)`).exec(screen)?.[1]);
  }

  /**
   * Sends a signal to the `arbor` process itself (the pane's shell's child), as `kill` from
   * another terminal would.
   */
  signalApp(signal: NodeJS.Signals): void {
    const shell = this.tmux("display-message", "-p", "-t", this.name, "#{pane_pid}").trim();
    const child = execFileSync("ps", ["-o", "pid=", "--ppid", shell], { encoding: "utf8" })
      .trim()
      .split(/\s+/)[0];
    if (!child) throw new Error(`no process runs in the pane of shell ${shell}`);
    process.kill(Number(child), signal);
  }

  /** Ends the tmux session (and with it the process). */
  kill(): void {
    try {
      this.tmux("kill-session", "-t", this.name);
    } catch {
      // already gone
    }
  }
}
