/**
 * `arbor acp` against the fake provider server: the time from `session/prompt` to the
 * first `agent_message_chunk` over stdio (the built binary, the SDK's client), compared
 * with the same prompt run in-process (`openCliAgent`, `host.prompt`, the first text
 * delta); and the time `session/load` takes to replay a 10,000-entry session. Run with
 * `pnpm bench` after `pnpm build`; not part of the tests.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable";
import { FakeProviderServer } from "@arbor/providers/test";
import { parseCliArgs } from "../src/args.js";
import { createCliContext, selectModel } from "../src/cli-context.js";
import { CliSessionStore, openCliAgent } from "../src/host/index.js";
import { sessionDirFor } from "../src/paths.js";

const ROUNDS = 41;
const LOAD_ENTRIES = 10_000;
const LOAD_ROUNDS = 5;
// `pnpm bench` runs in the package folder; the bench itself runs from a bundle elsewhere.
const BIN = join(process.cwd(), "dist", "bin.js");
let raw: { times: number[]; lines: number } = { times: [], lines: 0 };
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const server = await FakeProviderServer.start({ fallback: () => "Hello from the fake model." });
const root = await mkdtemp(join(tmpdir(), "arbor-acp-bench-"));
const home = join(root, "home");
const project = join(root, "project");
await mkdir(join(home, ".arbor"), { recursive: true });
await mkdir(project, { recursive: true });
await writeFile(
  join(home, ".arbor", "config.json"),
  JSON.stringify({
    defaultProvider: "fake",
    autoTitle: false,
    approval: "yolo",
    providers: {
      fake: { api: "openai-chat", baseURL: server.openaiBaseURL, apiKey: "k", model: "m" },
    },
  }),
);
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };

async function overStdio(): Promise<{ firstChunk: number[]; load: number[]; replayed: number }> {
  const child = spawn(process.execPath, [BIN, "acp"], {
    cwd: project,
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let onChunk: (() => void) | undefined;
  let updates = 0;
  const app = client({ name: "bench" }).onNotification("session/update", ({ params }) => {
    updates += 1;
    if (params.update.sessionUpdate === "agent_message_chunk") onChunk?.();
  });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const agent = connection.agent;
  await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  const firstChunk: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const chunk = new Promise<number>((resolve) => {
      onChunk = () => {
        onChunk = undefined;
        resolve(performance.now());
      };
    });
    const started = performance.now();
    const done = agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: `hi ${round}` }],
    });
    firstChunk.push((await chunk) - started);
    await done;
  }
  const big = await bigSession();
  raw = await loadRaw(big);
  const load: number[] = [];
  for (let round = 0; round < LOAD_ROUNDS; round++) {
    updates = 0;
    const started = performance.now();
    await agent.request("session/load", { sessionId: big, cwd: project, mcpServers: [] });
    load.push(performance.now() - started);
    await agent.request("session/close", { sessionId: big });
  }
  const replayed = updates;
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return { firstChunk, load, replayed };
}

/** `session/load` timed by an editor reading raw lines (no SDK validation on its side). */
async function loadRaw(sessionId: string): Promise<{ times: number[]; lines: number }> {
  const child = spawn(process.execPath, [BIN, "acp"], {
    cwd: project,
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  let waiting: { id: number; resolve: () => void } | undefined;
  let count = 0;
  lines.on("line", (line) => {
    count += 1;
    const message = JSON.parse(line) as { id?: number };
    if (waiting && message.id === waiting.id) waiting.resolve();
  });
  const call = (id: number, method: string, params: unknown) =>
    new Promise<void>((resolve) => {
      waiting = { id, resolve };
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await call(1, "initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const times: number[] = [];
  let replayed = 0;
  for (let round = 0; round < LOAD_ROUNDS; round++) {
    count = 0;
    const started = performance.now();
    await call(10 + round * 2, "session/load", { sessionId, cwd: project, mcpServers: [] });
    times.push(performance.now() - started);
    replayed = count - 1;
    await call(11 + round * 2, "session/close", { sessionId });
  }
  child.stdin.end();
  await new Promise((resolve) => child.on("exit", resolve));
  return { times, lines: replayed };
}

async function inProcess(): Promise<number[]> {
  const io = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env,
    cwd: project,
  };
  const context = createCliContext(io, parseCliArgs([]));
  const selection = await selectModel(context);
  const agent = await openCliAgent(context, selection, {
    session: { create: { cwd: project } },
    approvals: {},
    notice: () => undefined,
  });
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    const run = agent.host.prompt(`hi ${round}`);
    let first: number | undefined;
    for await (const event of run.events) {
      if (first === undefined && event.type === "text_delta") first = performance.now() - started;
    }
    await run.result;
    times.push(first ?? Number.NaN);
  }
  await agent.close();
  return times;
}

/** A session of {@link LOAD_ENTRIES} entries (user and assistant messages) in the project. */
async function bigSession(): Promise<string> {
  const paths = createCliContext(
    { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env, cwd: project },
    parseCliArgs([]),
  ).paths;
  const store = new CliSessionStore({
    sessionsRoot: paths.sessionsRoot,
    sessionDirFor: (cwd) => sessionDirFor(paths, cwd),
  });
  const session = await store.create({ cwd: project });
  for (let i = 0; i < LOAD_ENTRIES / 2; i++) {
    await session.appendMessage({ role: "user", content: `question ${i}`, timestamp: Date.now() });
    await session.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: `answer ${i}: ${"words ".repeat(20)}` }],
      stopReason: "stop",
      timestamp: Date.now(),
    });
  }
  const id = session.id;
  await session.close();
  return id;
}

try {
  const local = await inProcess();
  const stdio = await overStdio();
  const s = median(stdio.firstChunk.slice(1));
  const l = median(local.slice(1));
  console.log("| measure | median |");
  console.log("| --- | --- |");
  console.log(`| session/prompt → first agent_message_chunk, stdio | ${s.toFixed(2)} ms |`);
  console.log(`| host.prompt → first text_delta, in-process | ${l.toFixed(2)} ms |`);
  console.log(`| added by ACP over stdio | ${(s - l).toFixed(2)} ms (x${(s / l).toFixed(2)}) |`);
  console.log(
    `| session/load of ${LOAD_ENTRIES} entries to its response after ${raw.lines} updates, raw reader | ${median(raw.times).toFixed(1)} ms |`,
  );
  console.log(
    `| the same through the SDK's client (it validates each update) | ${median(stdio.load).toFixed(1)} ms (${stdio.replayed} updates) |`,
  );
} finally {
  await server.close();
  await rm(root, { recursive: true, force: true });
}
