import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readTool } from "./read-tool.js";

let base: string;
let project: string;
// A 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-read-tool-"));
  project = join(base, "project");
  await mkdir(project);
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "pic.png"), PNG);
  await symlink(join(base, "outside", "pic.png"), join(project, "out.png"));
  const numbered = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
  await writeFile(join(project, "ten.txt"), `${numbered}\n`);
  await writeFile(join(project, "pic.png"), PNG);
  await writeFile(join(project, "fake.png"), "just text");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const read = (args: Record<string, unknown>) =>
  readTool(project, 15_000).execute(readTool(project, 15_000).parameters.parse(args), {
    signal: new AbortController().signal,
    toolCallId: "c1",
  });

describe("the read tool", () => {
  it("reads a whole file, a line range, and says where to read on", async () => {
    expect(await read({ path: "ten.txt" })).toBe(
      `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n")}\n`,
    );
    expect(await read({ path: "ten.txt", offset: 3, limit: 2 })).toBe(
      "line 3\nline 4\n\n[read: lines 3-4 of 10 in ten.txt. Read on with offset 5.]",
    );
    expect(await read({ path: "ten.txt", offset: 9 })).toBe(
      "line 9\nline 10\n\n[read: lines 9-10 of 10 in ten.txt.]",
    );
    expect(await read({ path: "ten.txt", offset: 11 })).toBe(
      "[read: ten.txt has 10 lines; line 11 is past the end.]",
    );
  });

  it("hands an image to the model by its bytes, not its name, and never one outside", async () => {
    expect(await read({ path: "pic.png" })).toEqual([
      { type: "text", text: `pic.png: image/png, ${PNG.length} bytes` },
      { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
    ]);
    expect(await read({ path: "fake.png" })).toBe("just text");
    await expect(read({ path: "out.png" })).rejects.toThrow("outside the working directory");
  });

  it("reads the lines of a huge file's first 8 MiB in pages, never all of it", async () => {
    const line = `${"x".repeat(99)}\n`;
    await writeFile(join(project, "huge.txt"), line.repeat(100_000)); // 10 MB
    const first = (await read({ path: "huge.txt" })) as string;
    expect(first.length).toBeLessThan(300 * 1024);
    expect(first).toContain(
      "[read: lines 1-2000 of 83886 (of the first 8 MiB; use grep or bash for the rest) in huge.txt. Read on with offset 2001.]",
    );
    const late = (await read({ path: "huge.txt", offset: 80_000, limit: 1 })) as string;
    expect(late.startsWith(`${"x".repeat(99)}\n\n[read: lines 80000-80000`)).toBe(true);
    // One line longer than the byte cap is cut to the cap.
    await writeFile(join(project, "one-line.txt"), "y".repeat(600 * 1024));
    const long = (await read({ path: "one-line.txt" })) as string;
    expect(long.length).toBeLessThan(300 * 1024);
  });
});
