import { type ChildProcess, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk/unstable";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ARBOR_BIN } from "../e2e/tmux-terminal.js";

const require = createRequire(import.meta.url);
const schemaFile = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json");

let validator: ((value: unknown) => boolean) & { errors?: unknown } = Object.assign(() => true);
let loaded: Promise<void> | undefined;

/** Loads the SDK's JSON schema of ACP and compiles its `SessionNotification`. */
function loadValidator(): Promise<void> {
  loaded ??= readFile(schemaFile, "utf8").then((text) => {
    const schema = JSON.parse(text) as Record<string, unknown>;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ ...schema, $id: "acp" });
    validator = ajv.compile({ $ref: "acp#/$defs/SessionNotification" });
  });
  return loaded;
}

/** How the fake editor answers what the agent asks. */
export interface EditorBehaviour {
  /** Answers a permission request; default: the first option. Never resolving = never answering. */
  permission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  /** The editor's buffers: what fs/read_text_file returns and fs/write_text_file changes. */
  files?: Map<string, string>;
  /** Terminal commands run: terminal/create answered by running them here. */
  terminal?: boolean;
}

/** A running `arbor acp` and the SDK client connected to it over the child's stdio. */
export interface AcpProcess {
  child: ChildProcess;
  connection: ClientConnection;
  /** Every `session/update`, in order, each checked against the SDK's schema. */
  updates: SessionNotification[];
  /** Updates that did not match the schema, with the validator's errors. */
  invalid: { notification: unknown; errors: unknown }[];
  permissions: RequestPermissionRequest[];
  terminals: { command: string; args: string[]; cwd: string | null | undefined }[];
  stderr(): string;
  /** Resolves when an update matches. */
  waitForUpdate(match: (update: SessionNotification) => boolean): Promise<SessionNotification>;
  /** Closes stdin and waits for the process to exit. */
  close(): Promise<number | null>;
}

/** Starts the built `arbor acp` with the environment and connects the SDK's client to it. */
export async function startAcp(
  options: { cwd: string; env: Record<string, string>; args?: string[] },
  editor: EditorBehaviour = {},
): Promise<AcpProcess> {
  await loadValidator();
  const child = spawn(process.execPath, [ARBOR_BIN, "acp", ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const updates: SessionNotification[] = [];
  const invalid: AcpProcess["invalid"] = [];
  const permissions: RequestPermissionRequest[] = [];
  const terminals: AcpProcess["terminals"] = [];
  const waiters = new Set<{
    match: (u: SessionNotification) => boolean;
    resolve: (u: SessionNotification) => void;
  }>();
  const outputs = new Map<string, { output: string; exit: Promise<number | null> }>();
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      if (!validator(params)) invalid.push({ notification: params, errors: validator.errors });
      updates.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.match(params)) {
          waiters.delete(waiter);
          waiter.resolve(params);
        }
      }
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      if (editor.permission) return editor.permission(params);
      const first = params.options[0];
      return { outcome: { outcome: "selected", optionId: first?.optionId ?? "" } };
    })
    .onRequest("fs/read_text_file", async ({ params }) => {
      const text = editor.files?.get(params.path);
      if (text === undefined) throw new Error(`no buffer for ${params.path}`);
      return { content: text };
    })
    .onRequest("fs/write_text_file", async ({ params }) => {
      editor.files?.set(params.path, params.content);
      return {};
    })
    .onRequest("terminal/create", async ({ params }) => {
      terminals.push({ command: params.command, args: params.args ?? [], cwd: params.cwd });
      const id = `term-${terminals.length}`;
      const run = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? options.cwd });
      let output = "";
      run.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      run.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      const exit = new Promise<number | null>((resolve) => run.on("close", resolve));
      const entry = { output: "", exit };
      outputs.set(id, entry);
      void exit.then(() => {
        entry.output = output;
      });
      return { terminalId: id };
    })
    .onRequest("terminal/wait_for_exit", async ({ params }) => {
      const entry = outputs.get(params.terminalId);
      return { exitCode: (await entry?.exit) ?? null, signal: null };
    })
    .onRequest("terminal/output", async ({ params }) => {
      const entry = outputs.get(params.terminalId);
      await entry?.exit;
      return { output: entry?.output ?? "", truncated: false };
    })
    .onRequest("terminal/kill", async () => ({}))
    .onRequest("terminal/release", async () => ({}));
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    connection,
    updates,
    invalid,
    permissions,
    terminals,
    stderr: () => stderr,
    waitForUpdate: (match) => {
      const found = updates.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.add({ match, resolve }));
    },
    close: async () => {
      child.stdin?.end();
      return exited;
    },
  };
}

/** The capabilities of an editor that offers its files and terminal. */
export const FULL_EDITOR: ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
};

/** Writes a config that names the fake server as the only provider. */
export async function writeFakeConfig(
  home: string,
  baseURL: string,
  extra: object = {},
): Promise<void> {
  const { mkdir } = await import("node:fs/promises");
  await mkdir(`${home}/.arbor`, { recursive: true });
  await writeFile(
    `${home}/.arbor/config.json`,
    JSON.stringify({
      defaultProvider: "fake",
      providers: {
        fake: {
          api: "openai-chat",
          baseURL,
          apiKey: "test-key",
          models: [{ id: "fake-1" }, { id: "fake-2" }],
        },
      },
      autoTitle: false,
      ...extra,
    }),
  );
}

/** The text of the agent's message chunks of a list of updates, joined. */
export function agentText(updates: readonly SessionNotification[]): string {
  return updates
    .map((n) =>
      n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
        ? n.update.content.text
        : "",
    )
    .join("");
}
