import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { runArbor } from "./run-binary.js";

let server: FakeProviderServer;
let sandbox: Sandbox;

/** True once a tool's result is in the conversation the request carries. */
function hasToolResult(body: Record<string, unknown>): boolean {
  return /function_call_output|functionResponse|"role":"tool"/.test(JSON.stringify(body));
}

const READ_NOTES: ScriptedResponseInput = {
  blocks: [
    { type: "thinking", thinking: "The notes hold the answer.", signature: "enc-reasoning-1" },
    { type: "toolCall", id: "call_notes", name: "read", arguments: { path: "notes.txt" } },
  ],
};

beforeAll(async () => {
  server = await FakeProviderServer.start({
    fallback: (body, api) =>
      hasToolResult(body) ? `The notes say hello (via ${api}).` : READ_NOTES,
  });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
  await sandbox.writeProjectFile("notes.txt", "hello from the notes\n");
});
afterEach(() => sandbox.remove());

const configWith = (provider: Record<string, unknown>) =>
  JSON.stringify({ defaultProvider: "p", autoTitle: false, providers: { p: provider } });

const arbor = (args: string[]) =>
  runArbor(args, { cwd: sandbox.project, env: sandbox.env(server.openaiBaseURL) });

describe("arbor -p with each provider api", () => {
  it.each([
    [
      "openai-responses",
      () => ({
        api: "openai-responses",
        apiKey: "sk-test",
        baseURL: server.openaiBaseURL,
        model: "gpt-5",
      }),
      "openai-responses",
    ],
    [
      "google-gemini",
      () => ({ api: "google-gemini", apiKey: "AIza-test", baseURL: server.geminiBaseURL }),
      "google-gemini",
    ],
    [
      "azure-openai (responses)",
      () => ({
        api: "azure-openai",
        apiKey: "az-test",
        baseURL: server.azureEndpoint,
        model: "dep-5",
      }),
      "openai-responses",
    ],
    [
      "azure-openai (chat)",
      () => ({
        api: "azure-openai",
        wire: "chat",
        apiKey: "az-test",
        baseURL: server.azureEndpoint,
        model: "dep-4o",
      }),
      "openai",
    ],
  ])(
    "%s runs a tool call and answers, sending the reasoning back",
    async (_name, provider, wire) => {
      await sandbox.writeConfig(configWith(provider()));
      const before = server.requests.length;
      const result = await arbor(["-p", "what do the notes say?"]);
      // A deployment name is no catalogue model: its price is unknown, which is said once.
      expect(result.stderr.replace(/^\[\S+ has no price in the model catalogue.*\]\n/, "")).toBe(
        "",
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`The notes say hello (via ${wire}).\n`);
      const calls = server.requests.slice(before);
      expect(calls.map((call) => call.api)).toEqual([wire, wire]);
      const second = JSON.stringify(calls[1]?.body);
      expect(second).toContain("hello from the notes");
      // What must come back does: encrypted reasoning (Responses), a thought signature (Gemini).
      if (wire === "openai-responses")
        expect(second).toContain('"encrypted_content":"enc-reasoning-1"');
      if (wire === "google-gemini")
        expect(second).toContain('"thoughtSignature":"enc-reasoning-1"');
    },
  );

  it("an openai-chat provider with a local preset needs no key and gets the host's fields", async () => {
    await sandbox.writeConfig(
      configWith({
        api: "openai-chat",
        preset: "llamacpp",
        baseURL: server.openaiBaseURL,
        model: "qwen",
      }),
    );
    const before = server.requests.length;
    const result = await arbor(["-p", "what do the notes say?"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The notes say hello (via openai).\n");
    const first = server.requests[before];
    expect(first?.headers.authorization).toBe("Bearer not-needed");
    expect(first?.body).toMatchObject({ model: "qwen" });
    expect(JSON.stringify(first?.body)).not.toContain("max_completion_tokens");
  });

  it.each([
    [{ api: "google-gemini", apiKey: "k", preset: "groq" }, "providers.p.preset"],
    [{ api: "openai-chat", apiKey: "k", preset: "grok" }, "providers.p.preset"],
    [{ api: "openai-response", apiKey: "k" }, "providers.p.api"],
    [{ api: "azure-openai", apiKey: "k", model: "d" }, "providers.p.baseURL"],
    [
      { api: "azure-openai", apiKey: "k", baseURL: "https://r.openai.azure.com" },
      "providers.p.model",
    ],
  ])("names the field of a bad provider %j before any request", async (provider, field) => {
    await sandbox.writeConfig(configWith(provider));
    const before = server.requests.length;
    const result = await arbor(["-p", "hi"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(field);
    expect(server.requests.length).toBe(before);
  });
});
