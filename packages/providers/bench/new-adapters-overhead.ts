/**
 * Per-event overhead of the OpenAI Responses, Gemini and Azure OpenAI adapters over
 * consuming their SDK's raw stream, both reading the same fake server stream in the same
 * run. Run with `pnpm bench`; not part of the tests.
 */
import { fork } from "node:child_process";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { AzureOpenAI } from "openai";
import { createGeminiModel } from "../src/google/index.js";
import type { Model } from "../src/index.js";
import {
  createAzureOpenAIModel,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
} from "../src/openai/index.js";
import { FakeProviderServer } from "../src/test/index.js";

const DELTAS = 2000;
const ROUNDS = 15;
const WARMUP = 3;
const TEXT = "abcdefghij".repeat(DELTAS / 10);
const script = { blocks: [{ type: "text" as const, text: TEXT }], chunkSize: 1 };

// The fake server runs in a child process so its work does not land on the measured side.
if (process.argv[2] === "--serve") {
  const server = await FakeProviderServer.start({ fallback: () => script });
  process.send?.(server.url);
  process.on("disconnect", () => void server.close().then(() => process.exit(0)));
} else {
  await measure();
}

async function measure(): Promise<void> {
  const child = fork(process.argv[1] ?? "", ["--serve"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve) =>
    child.once("message", (m) => resolve(String(m))),
  );
  const input = "bench";
  const openai = new OpenAI({
    apiKey: "bench",
    baseURL: `${url}/v1`,
    maxRetries: 0,
    logLevel: "off",
  });
  const azure = new AzureOpenAI({
    apiKey: "bench",
    baseURL: `${url}/openai`,
    deployment: "bench",
    apiVersion: "2025-04-01-preview",
    maxRetries: 0,
    logLevel: "off",
  });
  const gemini = new GoogleGenAI({ apiKey: "bench", httpOptions: { baseUrl: url } });
  // The adapters build their own clients, byte-level idle tracking included, as in production.
  const responsesModel = createOpenAIResponsesModel({
    model: "openai/gpt-5",
    apiKey: "bench",
    baseURL: `${url}/v1`,
  });
  const geminiModel = createGeminiModel({
    model: "gemini-2.5-flash",
    apiKey: "bench",
    baseURL: url,
  });
  const azureModel = createAzureOpenAIModel({
    endpoint: url,
    deployment: "bench",
    apiKey: "bench",
  });

  const chatModel = createOpenAIChatModel({
    model: "openai/gpt-4.1",
    apiKey: "bench",
    baseURL: `${url}/v1`,
  });
  const rawChat = async () => {
    const stream = await openai.chat.completions.create({
      model: "gpt-4.1",
      messages: [{ role: "user", content: input }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let deltas = 0;
    for await (const chunk of stream) if (chunk.choices[0]?.delta.content) deltas += 1;
    return deltas;
  };
  const rawResponses = (client: OpenAI, model: string) => async () => {
    const stream = await client.responses.create({ model, input, stream: true, store: false });
    let deltas = 0;
    for await (const event of stream) if (event.type === "response.output_text.delta") deltas += 1;
    return deltas;
  };
  const rawGemini = async () => {
    const stream = await gemini.models.generateContentStream({
      model: "gemini-2.5-flash",
      contents: input,
      config: { automaticFunctionCalling: { disable: true }, automaticContinuation: false },
    });
    let deltas = 0;
    for await (const chunk of stream)
      if (chunk.candidates?.[0]?.content?.parts?.[0]?.text) deltas += 1;
    return deltas;
  };
  const adapter = (model: Model) => async () => {
    let deltas = 0;
    for await (const event of model.stream({ messages: [{ role: "user", content: input }] })) {
      if (event.type === "text_delta") deltas += 1;
    }
    return deltas;
  };

  async function timed(fn: () => Promise<number>): Promise<number> {
    const start = performance.now();
    const count = await fn();
    const elapsed = performance.now() - start;
    if (count !== DELTAS) throw new Error(`expected ${DELTAS} deltas, got ${count}`);
    return (elapsed * 1000) / count;
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };

  const pairs: Array<[string, () => Promise<number>, () => Promise<number>]> = [
    ["OpenAI Responses", rawResponses(openai, "gpt-5"), adapter(responsesModel)],
    ["Google Gemini", rawGemini, adapter(geminiModel)],
    ["Azure OpenAI (responses)", rawResponses(azure, "bench"), adapter(azureModel)],
    // The existing adapter, measured the same way in the same run, for reference.
    ["OpenAI Chat Completions (reference)", rawChat, adapter(chatModel)],
  ];
  const rows: string[][] = [];
  for (const [name, sdk, ours] of pairs) {
    for (let i = 0; i < WARMUP; i++) {
      await timed(sdk);
      await timed(ours);
    }
    const sdkTimes: number[] = [];
    const ourTimes: number[] = [];
    const added: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Interleave so drift (GC, CPU frequency) hits both sides alike.
      const a = await timed(sdk);
      const b = await timed(ours);
      sdkTimes.push(a);
      ourTimes.push(b);
      added.push(b - a);
    }
    const base = median(sdkTimes);
    const ours_ = median(ourTimes);
    const delta = median(added);
    rows.push([
      name,
      base.toFixed(2),
      ours_.toFixed(2),
      delta.toFixed(2),
      (ours_ / base).toFixed(2),
      delta < 5 ? "yes" : "NO",
    ]);
  }
  child.disconnect();
  const header = [
    "adapter",
    "SDK µs/event",
    "adapter µs/event",
    "added µs/event",
    "ratio",
    "< 5 µs",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ");
  console.log(`\n${DELTAS} text deltas per stream, medians of ${ROUNDS} interleaved rounds`);
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}
