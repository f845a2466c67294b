import { describe, expect, it } from "vitest";
import { CliUsageError, parseCliArgs } from "./args.js";

describe("parseCliArgs", () => {
  it("splits the command from its arguments", () => {
    expect(parseCliArgs(["sessions", "show", "abc", "--debug"])).toEqual({
      command: "sessions",
      positionals: ["show", "abc"],
      help: false,
      version: false,
      debug: true,
      json: false,
      continue: false,
      resume: false,
      trustProject: false,
      print: false,
      noSession: false,
      here: false,
      yes: false,
    });
  });

  it("reads the print mode options", () => {
    expect(
      parseCliArgs([
        "-p",
        "--output-format",
        "stream-json",
        "--system-prompt",
        "S",
        "--append-system-prompt",
        "A",
        "--thinking",
        "low",
        "--max-turns",
        "3",
        "--no-session",
        "--approval",
        "yolo",
        "hi",
      ]),
    ).toMatchObject({
      command: "hi",
      print: true,
      outputFormat: "stream-json",
      systemPrompt: "S",
      appendSystemPrompt: "A",
      thinking: "low",
      maxTurns: "3",
      noSession: true,
      approval: "yolo",
    });
  });

  it("reads --trust-project, for run and for the app", () => {
    expect(parseCliArgs(["run", "--trust-project", "hi"])).toMatchObject({
      command: "run",
      positionals: ["hi"],
      trustProject: true,
    });
    expect(parseCliArgs(["--trust-project"]).trustProject).toBe(true);
    expect(() => parseCliArgs(["--trust-project=no"])).toThrow(/--trust-project/);
  });

  it("reads the session, provider and model options", () => {
    expect(
      parseCliArgs([
        "run",
        "-c",
        "--json",
        "-s",
        "abc",
        "--provider",
        "ollama",
        "-m",
        "llama3.2",
        "hi",
      ]),
    ).toMatchObject({
      command: "run",
      positionals: ["hi"],
      continue: true,
      json: true,
      session: "abc",
      provider: "ollama",
      model: "llama3.2",
    });
  });

  it("reads short flags", () => {
    expect(parseCliArgs(["-h"]).help).toBe(true);
    expect(parseCliArgs(["-v"]).version).toBe(true);
  });

  it("rejects an unknown option with a pointer to --help", () => {
    expect(() => parseCliArgs(["--frobnicate"])).toThrow(CliUsageError);
    expect(() => parseCliArgs(["--frobnicate"])).toThrow(/--frobnicate.*arbor --help/s);
  });
});

describe("parseCliArgs: -r", () => {
  it("-r and --resume ask for the session picker", () => {
    expect(parseCliArgs(["-r"]).resume).toBe(true);
    expect(parseCliArgs(["--resume"]).resume).toBe(true);
    expect(parseCliArgs([]).resume).toBe(false);
  });
});
