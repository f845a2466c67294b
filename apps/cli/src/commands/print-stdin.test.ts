import { openSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { createServer, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { stdinHoldsInput } from "./print-command.js";

const withFd = (fd: number, isTTY = false) => Object.assign(new PassThrough(), { fd, isTTY });

describe("stdinHoldsInput", () => {
  it("reads a file or a pipe beside a prompt, anything but a terminal without one, never a socket beside a prompt", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-stdin-"));
    writeFileSync(join(dir, "input.txt"), "text");
    const file = withFd(openSync(join(dir, "input.txt"), "r"));
    expect(stdinHoldsInput(file, true)).toBe(true);
    expect(stdinHoldsInput(withFd(openSync("/dev/null", "r")), true)).toBe(false);
    expect(stdinHoldsInput(withFd(openSync("/dev/null", "r")), false)).toBe(true);
    expect(stdinHoldsInput(withFd(0, true), false)).toBe(false);
    // A socket (what a parent process's inherited, never-closed stdin often is).
    const server = createServer();
    const path = join(dir, "sock");
    await new Promise<void>((resolve) => server.listen(path, resolve));
    const socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(path, resolve));
    const fd = (socket as unknown as { _handle: { fd: number } })._handle.fd;
    expect(stdinHoldsInput(withFd(fd), true)).toBe(false);
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
});
