// `pnpm bench:headends` in apps/server (also run by `pnpm bench`): the time to the first
// streamed token through each headend against the native `/v1/sessions/:id/runs` SSE, same
// agent, same answer, same server. Loopback only; never in `test`.

import { answerByPrompt } from "../test/helpers/answers.js";
import { type BenchServer, median, startBenchServer } from "./bench-server.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WARM_UP = 5;
const DELTAS = 50;
const PROMPT = `stream ${DELTAS}`;

/** One way to ask for the answer: the request, and what marks its first token on the wire. */
interface Path {
  name: string;
  /** Prepares what the timed request needs (untimed): a session, an MCP session. */
  prepare(): Promise<() => Promise<Response>>;
  firstToken: string;
}

async function newSession(bench: BenchServer): Promise<string> {
  const res = await bench.call("POST", "/v1/sessions", { cwd: "/bench" });
  return ((await res.json()) as { id: string }).id;
}

function post(
  bench: BenchServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${bench.server.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${bench.key}`,
      "content-type": "application/json",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** An initialized MCP session's id. */
async function mcpSession(bench: BenchServer): Promise<string> {
  const accept = { accept: "application/json, text/event-stream" };
  const init = await post(
    bench,
    "/mcp",
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    },
    accept,
  );
  const id = init.headers.get("mcp-session-id") as string;
  await init.text();
  const headers = { ...accept, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
  await (
    await post(bench, "/mcp", { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
  ).text();
  return id;
}

function paths(bench: BenchServer): Path[] {
  return [
    {
      name: "native POST /v1/sessions/:id/runs (SSE)",
      firstToken: "event: text_delta",
      prepare: async () => {
        const id = await newSession(bench);
        return () =>
          post(
            bench,
            `/v1/sessions/${id}/runs`,
            { agent: "helper", prompt: PROMPT },
            { accept: "text/event-stream" },
          );
      },
    },
    {
      name: "OpenAI chat completions (stream)",
      firstToken: '"content":"f',
      prepare: async () => {
        const id = await newSession(bench);
        return () =>
          post(
            bench,
            "/v1/chat/completions",
            { model: "helper", stream: true, messages: [{ role: "user", content: PROMPT }] },
            { "x-arbor-session": id },
          );
      },
    },
    {
      name: "OpenAI responses (stream, new session)",
      firstToken: "response.output_text.delta",
      prepare: async () => () =>
        post(bench, "/v1/responses", { model: "helper", stream: true, input: PROMPT }),
    },
    {
      name: "MCP tools/call (progress)",
      firstToken: "notifications/progress",
      prepare: async () => {
        const id = await newSession(bench);
        const mcp = await mcpSession(bench);
        return () =>
          post(
            bench,
            "/mcp",
            {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: {
                name: "helper",
                arguments: { prompt: PROMPT, session: id },
                _meta: { progressToken: 1 },
              },
            },
            {
              accept: "application/json, text/event-stream",
              "mcp-session-id": mcp,
              "mcp-protocol-version": "2025-06-18",
            },
          );
      },
    },
    {
      name: "A2A message/stream",
      firstToken: "artifact-update",
      prepare: async () => {
        const id = await newSession(bench);
        return () =>
          post(bench, "/a2a", {
            jsonrpc: "2.0",
            id: 1,
            method: "message/stream",
            params: {
              message: {
                kind: "message",
                messageId: `m${Math.random()}`,
                contextId: id,
                role: "user",
                parts: [{ kind: "text", text: PROMPT }],
              },
            },
          });
      },
    },
  ];
}

/** Milliseconds from sending the request to reading its first token; reads the rest. */
async function timeFirstToken(path: Path): Promise<number> {
  const send = await path.prepare();
  const start = performance.now();
  const res = await send();
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let first = Number.NaN;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (Number.isNaN(first) && text.includes(path.firstToken)) first = performance.now() - start;
  }
  if (Number.isNaN(first)) throw new Error(`${path.name}: no first token in ${text.slice(0, 300)}`);
  return first;
}

const bench = await startBenchServer(answerByPrompt);
try {
  const all = paths(bench);
  const times = new Map(all.map((p) => [p.name, [] as number[]]));
  for (let i = 0; i < WARM_UP; i++) for (const path of all) await timeFirstToken(path);
  for (let i = 0; i < ROUNDS; i++) {
    // Each round starts at another path, so none always follows the same one (a run's
    // closing work overlaps the next request).
    for (let k = 0; k < all.length; k++) {
      const path = all[(i + k) % all.length] as Path;
      times.get(path.name)?.push(await timeFirstToken(path));
    }
  }
  const native = median(times.get(all[0]?.name as string) ?? []);
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  console.log(
    `\nfirst streamed token, median of ${ROUNDS} (answer of ${DELTAS} deltas, loopback)\n`,
  );
  console.log(["path", "median", "vs native", "added"].join(" | "));
  for (const path of all) {
    const m = median(times.get(path.name) ?? []);
    console.log(
      [
        path.name,
        ms(m),
        `${(m / native).toFixed(2)}x`,
        `${m - native >= 0 ? "+" : ""}${ms(m - native)}`,
      ].join(" | "),
    );
  }
} finally {
  await bench.close();
}
