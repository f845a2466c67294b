/**
 * What orchestration adds per child run, over the same work done with bare AgentHost
 * sessions, and 50 parallel sub-agents through the OpenAI adapter against the fake provider
 * server. Run with `pnpm bench` (node --expose-gc); not part of the tests.
 */
import { fork } from "node:child_process";
import { findModelInfo, type ModelInfo } from "@arbor/providers";
import { createOpenAIChatModel } from "@arbor/providers/openai";
import { FakeProviderServer, ScriptedModel } from "@arbor/providers/test";
import { MemorySessionStore } from "@arbor/session-store";
import { defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import {
  AgentHost,
  type AgentNode,
  defineAgent,
  type ModelTargetSpec,
  runAgent,
} from "../src/index.js";

const ROUNDS = 301;
const WARMUP = 30;
const MEMORY_RUNS = 200;
const PARALLEL = 50;
const PARALLEL_ROUNDS = 5;
const WORKER_PROMPT = "work item";

const gc = (globalThis as { gc?: () => void }).gc;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const call = (name: string, args: Record<string, unknown>, id = "c1") => ({
  blocks: [{ type: "toolCall" as const, id, name, arguments: args }],
});
const definition = (name: string) => defineAgent({ name, models: [`scripted/${name}`] });
const leaf = (name: string): AgentNode => ({
  definition: definition(name),
  file: "<inline>",
  advisors: [],
  destinations: [],
  handoff: undefined,
  agents: [],
});
const quiet = { retryDelayMs: 1, sleep: async () => {} };

/** One root answer that calls one sub-agent, through runAgent. */
async function orchestrated(store: MemorySessionStore): Promise<void> {
  const models: Record<string, ScriptedModel> = {
    main: new ScriptedModel({
      responses: [call("agent__worker", { prompt: WORKER_PROMPT }), "done"],
    }),
    worker: new ScriptedModel({ responses: ["ok"] }),
  };
  const root = { ...leaf("main"), agents: [leaf("worker")] };
  const target = (spec: ModelTargetSpec) =>
    models[typeof spec === "string" ? spec : (spec.model ?? "")] as ScriptedModel;
  const result = await runAgent(root, "go", { store, models: target, agentOptions: quiet }).result;
  if (!result.success) throw new Error(`orchestrated run failed: ${result.message}`);
}

/** The same work without orchestration: a root AgentHost whose tool opens a child AgentHost. */
async function bare(store: MemorySessionStore): Promise<void> {
  const worker = defineTool({
    name: "agent__worker",
    description: "Runs the worker",
    parameters: z.object({ prompt: z.string() }),
    execute: async ({ prompt }) => {
      const child = await AgentHost.open({
        store,
        create: { cwd: "/" },
        agent: definition("worker"),
        models: () => new ScriptedModel({ responses: ["ok"] }),
        agentOptions: quiet,
      });
      try {
        const result = await child.prompt(prompt).result;
        return result.success ? String(result.finalReport.value) : "failed";
      } finally {
        await child.close();
      }
    },
  });
  const host = await AgentHost.open({
    store,
    create: { cwd: "/" },
    agent: definition("main"),
    models: () =>
      new ScriptedModel({ responses: [call("agent__worker", { prompt: WORKER_PROMPT }), "done"] }),
    tools: [worker],
    agentOptions: quiet,
  });
  try {
    const result = await host.prompt("go").result;
    if (!result.success) throw new Error(`bare run failed: ${result.message}`);
  } finally {
    await host.close();
  }
}

async function timeEach(work: (store: MemorySessionStore) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + WARMUP; i++) {
    const store = new MemorySessionStore();
    const started = performance.now();
    await work(store);
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  return times;
}

/** Heap kept per run: MEMORY_RUNS runs into one store, measured after a full GC. */
async function heapPerRun(work: (store: MemorySessionStore) => Promise<void>): Promise<number> {
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const store = new MemorySessionStore();
  for (let i = 0; i < MEMORY_RUNS; i++) await work(store);
  gc?.();
  const after = process.memoryUsage().heapUsed;
  const listed = await store.list({ limit: 1000 });
  if (listed.sessions.length !== MEMORY_RUNS * 2) throw new Error("unexpected session count");
  return (after - before) / MEMORY_RUNS;
}

const workerInfo: ModelInfo = findModelInfo("openai/gpt-4.1-mini") as ModelInfo;

/** Answers like a root (50 sub-agent calls, then a summary) or a worker ("ok"). */
function fakeAnswer(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Array<{ role?: string; content?: unknown }>;
  const isWorker = messages.some(
    (message) =>
      JSON.stringify(message.content ?? "").includes(WORKER_PROMPT) && message.role === "user",
  );
  if (isWorker) return "ok";
  if (messages.some((message) => message.role === "tool")) return "all done";
  return {
    blocks: Array.from({ length: PARALLEL }, (_, i) => ({
      type: "toolCall" as const,
      id: `call_${i}`,
      name: "agent__worker",
      arguments: { prompt: `${WORKER_PROMPT} ${i}` },
    })),
  };
}

async function sampledPeak<T>(
  work: () => Promise<T>,
): Promise<{ ms: number; rss: number; heap: number }> {
  gc?.();
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const usage = process.memoryUsage();
    rss = Math.max(rss, usage.rss);
    heap = Math.max(heap, usage.heapUsed);
  };
  const timer = setInterval(sample, 5);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  clearInterval(timer);
  sample();
  return { ms, rss, heap };
}

async function parallel(url: string): Promise<void> {
  const model = () =>
    createOpenAIChatModel({ model: workerInfo, apiKey: "bench", baseURL: `${url}/v1` });
  const root = { ...leaf("main"), agents: [leaf("worker")] };
  const orchestratedRuns: Array<{ ms: number; rss: number; heap: number }> = [];
  const bareRuns: Array<{ ms: number; rss: number; heap: number }> = [];
  for (let round = 0; round < PARALLEL_ROUNDS; round++) {
    const store = new MemorySessionStore();
    orchestratedRuns.push(
      await sampledPeak(async () => {
        const result = await runAgent(root, "go", {
          store,
          models: model,
          limits: { concurrency: PARALLEL },
          agentOptions: quiet,
        }).result;
        const ok = result.children.filter((child) => child.outcome === "succeeded").length;
        if (!result.success || ok !== PARALLEL)
          throw new Error(`parallel run: ${ok} of ${PARALLEL} children succeeded`);
      }),
    );
    const bareStore = new MemorySessionStore();
    bareRuns.push(
      await sampledPeak(async () => {
        await Promise.all(
          Array.from({ length: PARALLEL }, async (_, i) => {
            const host = await AgentHost.open({
              store: bareStore,
              create: { cwd: "/" },
              agent: definition("worker"),
              models: model,
              agentOptions: quiet,
            });
            const result = await host.prompt(`${WORKER_PROMPT} ${i}`).result;
            await host.close();
            if (!result.success) throw new Error("bare parallel run failed");
          }),
        );
      }),
    );
  }
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const row = (name: string, runs: typeof bareRuns) =>
    `| ${name} | ${median(runs.map((r) => r.ms)).toFixed(1)} | ${mb(median(runs.map((r) => r.heap)))} | ${mb(median(runs.map((r) => r.rss)))} |`;
  console.log(
    `\n${PARALLEL} parallel children through the OpenAI adapter against the fake server (medians of ${PARALLEL_ROUNDS})\n`,
  );
  console.log("| run | wall ms | peak heap MB | peak RSS MB |");
  console.log("| --- | ---: | ---: | ---: |");
  console.log(
    row(`runAgent: root + ${PARALLEL} sub-agents (concurrency ${PARALLEL})`, orchestratedRuns),
  );
  console.log(row(`peer: ${PARALLEL} bare AgentHost sessions (Promise.all)`, bareRuns));
}

if (process.argv[2] === "--serve") {
  // The fake server runs in another process so its work and memory are not measured.
  const server = await FakeProviderServer.start({ fallback: (body) => fakeAnswer(body) });
  process.send?.(server.url);
  process.on("disconnect", () => void server.close().then(() => process.exit(0)));
} else {
  if (!gc) console.log("(run with node --expose-gc for the memory figures)");
  const orchestratedTimes = await timeEach(orchestrated);
  const bareTimes = await timeEach(bare);
  const orchestratedHeap = await heapPerRun(orchestrated);
  const bareHeap = await heapPerRun(bare);
  const o = median(orchestratedTimes);
  const b = median(bareTimes);
  console.log(
    `\nOne root answer calling one sub-agent (scripted model, memory store; medians of ${ROUNDS})\n`,
  );
  console.log("| run | ms per run | heap kept per run KB |");
  console.log("| --- | ---: | ---: |");
  console.log(
    `| runAgent (child session, ancestry, child entries, events) | ${o.toFixed(3)} | ${(orchestratedHeap / 1024).toFixed(1)} |`,
  );
  console.log(
    `| peer: bare AgentHost root whose tool opens a bare AgentHost child | ${b.toFixed(3)} | ${(bareHeap / 1024).toFixed(1)} |`,
  );
  console.log(
    `| overhead per child run | ${(o - b).toFixed(3)} (ratio ${(o / b).toFixed(2)}) | ${((orchestratedHeap - bareHeap) / 1024).toFixed(1)} |`,
  );
  const child = fork(process.argv[1] ?? "", ["--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve) =>
    child.once("message", (m) => resolve(String(m))),
  );
  try {
    await parallel(url);
  } finally {
    child.disconnect();
  }
}
