import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CliIo } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import { cliVersion, main, reportError } from "./main.js";

function memoryIo(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    stdin: Object.assign(Readable.from([]), { isTTY: false }),
    env: { HOME: "/nonexistent-arbor-home", ...env },
    cwd: "/",
  };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}

describe("main", () => {
  it("prints the version and help without touching the config", async () => {
    const version = memoryIo();
    expect(await main(["--version"], version.io)).toBe(0);
    expect(version.stdout()).toBe(`arbor ${cliVersion()}\n`);
    const help = memoryIo();
    expect(await main(["help", "sessions"], help.io)).toBe(0);
    expect(help.stdout()).toContain("arbor sessions regenerate-title <id>");
    const unknown = memoryIo();
    expect(await main(["help", "nope"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toContain('there is no command "nope"');
  });

  it("refuses the interactive app when no terminal starter is given", async () => {
    const { io, stderr } = memoryIo();
    io.stdin.isTTY = true;
    expect(await main([], io)).toBe(1);
    expect(stderr()).toContain("interactive app is not available");
  });
});

describe("reportError", () => {
  it("prints the message and the next step, and a stack trace only with --debug", () => {
    const error = new CliError("the thing broke.", {
      hint: "Do the other thing.",
      cause: new Error("inner"),
    });
    const quiet = memoryIo();
    expect(reportError(error, quiet.io, false)).toBe(1);
    expect(quiet.stderr()).toBe("arbor: the thing broke.\nDo the other thing.\n");
    const loud = memoryIo();
    reportError(error, loud.io, true);
    expect(loud.stderr()).toMatch(/Error: inner\n\s+at /);
  });

  it("turns an unexpected error into one line with a pointer to --debug", () => {
    const quiet = memoryIo();
    expect(reportError(new TypeError("boom"), quiet.io, false)).toBe(1);
    expect(quiet.stderr()).toBe("arbor: boom\nRun again with --debug to see where it happened.\n");
    const loud = memoryIo();
    reportError(new TypeError("boom"), loud.io, true);
    expect(loud.stderr()).toMatch(/TypeError: boom\n\s+at /);
  });
});
