import type { ExtensionRunner } from "@arbor/extensions-api";
import { AgentHost, defineAgent } from "@arbor/orchestration";
import type { Model } from "@arbor/providers";
import { MemorySessionStore } from "@arbor/session-store";
import type { TtsrRule } from "@arbor/ttsr";
import type { AgentTool } from "@arbor/turn-runner";
import { render } from "ink-testing-library";
import { ChatApp } from "./chat-app.js";
import { ChatController } from "./chat-controller.js";
import { inputReady } from "./ink-input.test-util.js";

/** What {@link openTestHost} opens the host with. */
export interface TestHostOptions {
  model: Model;
  cwd: string;
  tools?: readonly AgentTool[];
  rules?: readonly TtsrRule[];
  extensions?: ExtensionRunner;
}

/**
 * Opens an agent host on a new session of a memory store, as the app opens one on its
 * files: no system prompt, no titles, the given model for every target.
 */
export async function openTestHost(options: TestHostOptions): Promise<{
  host: AgentHost;
  store: MemorySessionStore;
}> {
  const store = new MemorySessionStore();
  const definition = defineAgent({ name: "arbor", models: [{ provider: "scripted" }] });
  const host = await AgentHost.open({
    store,
    create: { cwd: options.cwd },
    agent: definition,
    models: () => options.model,
    tools: options.tools ?? [],
    rules: options.rules ?? [],
    projectRoot: options.cwd,
    agentOptions: { generateTitle: false },
    ...(options.extensions ? { extensions: options.extensions } : {}),
  });
  return { host, store };
}

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/** The rendered app: its ink handle, the screen, and a way to type a line. */
export interface RenderedChatApp {
  controller: ChatController;
  app: ReturnType<typeof render>;
  frame(): string;
  send(text: string): Promise<void>;
}

/**
 * Renders the app over a host, as `arbor` does, once ink listens on stdin: `frame()` is
 * the screen, `send(text)` types a line and presses Enter.
 */
export async function renderChatApp(
  host: AgentHost,
  selectModel: (spec: string) => Model,
): Promise<RenderedChatApp> {
  const controller = new ChatController({ host, rules: { rules: [], warnings: [] }, selectModel });
  const app = render(
    <ChatApp controller={controller} cwd="/project" listSessions={async () => []} />,
  );
  await inputReady(app.stdin);
  const frame = () => app.lastFrame() ?? "";
  const send = async (text: string) => {
    app.stdin.write(text);
    await tick();
    app.stdin.write("\r");
  };
  return { controller, app, frame, send };
}
