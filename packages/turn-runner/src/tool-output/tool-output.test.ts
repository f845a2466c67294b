import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentTool, defineTool, runToolCall, type ToolOutput } from "../agent-tool.js";
import { capToolOutput } from "./cap-tool-output.js";
import { readToolOutputTool } from "./read-tool-output-tool.js";
import { ToolOutputStore } from "./tool-output-store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-tool-output-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const digits = (length: number) => Array.from({ length }, (_, i) => String(i % 10)).join("");

const producing = (output: ToolOutput) =>
  defineTool({
    name: "produce",
    description: "Returns a fixed output",
    parameters: z.object({}),
    execute: () => output,
  });

/** What the model reads from one call, as the turn loop runs it. */
async function call(tool: AgentTool, args: Record<string, unknown> = {}) {
  const outcome = await runToolCall(
    tool,
    { id: "c1", name: tool.name, arguments: args },
    { signal: new AbortController().signal, timeoutMs: 5_000 },
  );
  const text = outcome.content
    .map((part) => (part.type === "text" ? part.text : `<${part.mimeType}>`))
    .join("|");
  return { ...outcome, text };
}

describe("capToolOutput", () => {
  it("passes an output within the cap unchanged", async () => {
    const store = new ToolOutputStore({ dir });
    const capped = capToolOutput(producing(digits(100)), { store, maxChars: 100 });
    expect(await call(capped)).toMatchObject({ text: digits(100), isError: false });
    expect(await readdir(dir)).toEqual([]);
  });

  it("stores an oversize output and shows its head with the handle and how to read on", async () => {
    const store = new ToolOutputStore({ dir });
    const capped = capToolOutput(producing(digits(1_000)), {
      store,
      maxChars: 300,
      excerptChars: 50,
    });
    const { text, isError } = await call(capped);
    expect(isError).toBe(false);
    const handle = text.match(/stored as (out_[0-9a-f]{16})/)?.[1];
    expect(handle).toBeDefined();
    expect(text).toBe(
      `${digits(50)}\n\n[Output truncated: characters 0-50 of 1000 are shown. The full output is stored as ${handle}; read on with read_tool_output {"handle":"${handle}","offset":50,"limit":300}.]`,
    );
    expect(await readFile(join(dir, `${handle}.txt`), "utf8")).toBe(digits(1_000));
  });

  it("keeps images and joins the text parts of a mixed output", async () => {
    const store = new ToolOutputStore({ dir });
    const capped = capToolOutput(
      producing([
        { type: "text", text: "a".repeat(80) },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "b".repeat(80) },
      ]),
      { store, maxChars: 100, excerptChars: 10 },
    );
    const outcome = await call(capped);
    expect(outcome.content).toHaveLength(2);
    expect(outcome.content[1]).toEqual({ type: "image", data: "AAAA", mimeType: "image/png" });
    expect(outcome.text).toMatch(/^a{10}\n\n\[Output truncated: characters 0-10 of 161 /);
  });

  it("caps an oversize error message the same way, leaving short ones alone", async () => {
    const store = new ToolOutputStore({ dir });
    const failing = (message: string) =>
      capToolOutput(
        defineTool({
          name: "failing",
          description: "Throws",
          parameters: z.object({}),
          execute: () => {
            throw new Error(message);
          },
        }),
        { store, maxChars: 100, excerptChars: 10 },
      );
    expect(await call(failing("short"))).toMatchObject({
      isError: true,
      text: "Tool failing failed: short",
    });
    const long = await call(failing(digits(500)));
    expect(long.isError).toBe(true);
    expect(long.text).toMatch(
      /^Tool failing failed: 0123456789\n\n\[Output truncated: characters 0-10 of 500 are shown\. The full output is stored as out_[0-9a-f]{16};/,
    );
    const [file] = await readdir(dir);
    expect(await readFile(join(dir, `${file}`), "utf8")).toBe(digits(500));
  });

  it("cuts the output and says why when the store cannot write", async () => {
    const file = join(dir, "not-a-directory");
    await writeFile(file, "");
    const store = new ToolOutputStore({ dir: file });
    const capped = capToolOutput(producing(digits(500)), {
      store,
      maxChars: 100,
      excerptChars: 20,
    });
    const { text, isError } = await call(capped);
    expect(isError).toBe(false);
    expect(text).toMatch(
      new RegExp(
        `^${digits(20)}\\n\\n\\[Output cut to 20 of 500 characters; the rest could not be stored \\(.*EEXIST.*\\)\\.\\]$`,
      ),
    );
  });
});

describe("read_tool_output", () => {
  async function stored(text: string, maxLimit = 400) {
    const store = new ToolOutputStore({ dir });
    const handle = await store.save(text);
    return { store, handle, reader: readToolOutputTool(store, maxLimit) };
  }

  it("pages through a stored output to its end, reassembling it exactly", async () => {
    const original = `${"héllo wörld ✓ ".repeat(70)}end`;
    const { handle, reader } = await stored(original);
    let offset: number | undefined = 0;
    let reassembled = "";
    const headers: string[] = [];
    while (offset !== undefined) {
      const { text, isError } = await call(reader, { handle, offset });
      expect(isError).toBe(false);
      const [header = "", ...rest] = text.split("\n");
      headers.push(header);
      reassembled += rest.join("\n");
      offset = Number(header.match(/"offset":(\d+)/)?.[1] ?? Number.NaN);
      if (Number.isNaN(offset)) offset = undefined;
    }
    expect(reassembled).toBe(original);
    expect(headers).toEqual([
      `[${handle}: characters 0-400 of 983; next: read_tool_output {"handle":"${handle}","offset":400}]`,
      `[${handle}: characters 400-800 of 983; next: read_tool_output {"handle":"${handle}","offset":800}]`,
      `[${handle}: characters 800-983 of 983; end of output]`,
    ]);
  });

  it("honours a smaller limit", async () => {
    const { handle, reader } = await stored(digits(100));
    expect((await call(reader, { handle, offset: 10, limit: 5 })).text).toBe(
      `[${handle}: characters 10-15 of 100; next: read_tool_output {"handle":"${handle}","offset":15}]\n01234`,
    );
  });

  it("refuses path traversal and other malformed handles without touching the filesystem", async () => {
    await writeFile(join(dir, "secret.txt"), "top secret");
    const { reader } = await stored("x");
    const inside = `../${basename(dir)}/secret`;
    for (const handle of ["secret", inside, "out_../secret", "/etc/passwd", "", "OUT_0123"]) {
      const outcome = await call(reader, { handle });
      expect(outcome.isError).toBe(true);
      expect(outcome.text).toContain("is not an output handle");
      expect(outcome.text).not.toContain("top secret");
    }
  });

  it("names an unknown handle", async () => {
    const { reader } = await stored("x");
    const outcome = await call(reader, { handle: "out_0000000000000000" });
    expect(outcome).toMatchObject({
      isError: true,
      text: "Tool read_tool_output failed: No stored output has the handle out_0000000000000000; use a handle from a truncated tool result of this session.",
    });
  });

  it("rejects a huge limit, a negative offset and an offset past the end", async () => {
    const { handle, reader } = await stored(digits(100));
    const huge = await call(reader, { handle, limit: 1e9 });
    expect(huge.isError).toBe(true);
    expect(huge.text).toContain("Invalid arguments for read_tool_output");
    expect(huge.text).toContain("limit");
    expect(huge.text).toContain("<=400");
    const negative = await call(reader, { handle, offset: -5 });
    expect(negative.isError).toBe(true);
    expect(negative.text).toContain("offset");
    const past = await call(reader, { handle, offset: 100 });
    expect(past).toMatchObject({
      isError: true,
      text: `Tool read_tool_output failed: Offset 100 is past the end of output ${handle}, which has 100 characters.`,
    });
  });
});

describe("ToolOutputStore", () => {
  it("makes a temporary directory on first save and removes it on dispose", async () => {
    const store = new ToolOutputStore();
    const handle = await store.save("kept for later");
    const directory = await store.directory();
    expect((await stat(join(directory, `${handle}.txt`))).isFile()).toBe(true);
    await store.dispose();
    await expect(stat(directory)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("creates a configured directory, and keeps it on dispose", async () => {
    const nested = join(dir, "a", "b");
    const store = new ToolOutputStore({ dir: nested });
    const handle = await store.save("x");
    await store.dispose();
    expect(await readdir(nested)).toEqual([`${handle}.txt`]);
  });
});
