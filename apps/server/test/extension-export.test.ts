import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { openSessionFile } from "@arbor/session-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ExtensionServer,
  json,
  newSession,
  startExtensionServer,
} from "./helpers/extension-server.js";

let s: ExtensionServer;
beforeAll(async () => {
  s = await startExtensionServer();
}, 30_000);
afterAll(() => s.close());

/** The page data an exported page embeds. */
function pageData(html: string): { rendered: Record<string, unknown> } {
  const data = /<script type="application\/json" id="arbor-session">([\s\S]*?)<\/script>/.exec(
    html,
  )?.[1];
  return JSON.parse(data ?? "{}");
}

/** A session holding the todo list's custom messages, one shown and one hidden. */
async function sessionWithTodos(): Promise<{ id: string; shown: string; hidden: string }> {
  const id = await newSession(s);
  // Written beside the server, as an extension's sendMessage stores it.
  const files = await readdir(join(s.home, "sessions"), { recursive: true });
  const file = files.find((name) => name.endsWith(".jsonl") && name.includes(id));
  if (file === undefined) throw new Error(`no file of session ${id}`);
  const session = await openSessionFile(join(s.home, "sessions", file));
  const todos = [
    { text: "write the tests", done: true },
    { text: "ship <it>", done: false },
  ];
  const shown = await session.appendCustomMessageEntry("todo-list", "2 todos", true, { todos });
  const hidden = await session.appendCustomMessageEntry("todo-list", "hidden", false, { todos });
  await session.close();
  return { id, shown, hidden };
}

describe("the HTML export over the server", { timeout: 30_000 }, () => {
  it("shows custom messages through the renderers of the agent's extensions", async () => {
    const { id, shown, hidden } = await sessionWithTodos();
    const res = await s.call("GET", `/v1/sessions/${id}/export?agent=planner`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const { rendered } = pageData(await res.text());
    expect(rendered[shown]).toEqual({
      html: "<p><strong>Todo (1 open of 2)</strong></p><ol><li>☑ write the tests</li><li>☐ ship &#60;it&#62;</li></ol>",
      by: "todo-list.ts",
    });
    // display:false messages are never rendered.
    expect(rendered[hidden]).toBeUndefined();
  });

  it("uses the first configured agent by default, and none for an agent without extensions", async () => {
    const { id, shown } = await sessionWithTodos();
    // The first agent (gated) has no todo renderer: the default view.
    const first = pageData(await (await s.call("GET", `/v1/sessions/${id}/export`)).text());
    expect(first.rendered[shown]).toBeUndefined();
    const helper = await s.call("GET", `/v1/sessions/${id}/export?agent=helper`);
    expect(helper.status).toBe(200);
    expect(pageData(await helper.text()).rendered).toEqual({});
  });

  it("answers 404 for an unknown agent and 400 for a malformed one, and stores nothing", async () => {
    const { id } = await sessionWithTodos();
    const before = await json(await s.call("GET", `/v1/sessions/${id}`));
    const unknown = await s.call("GET", `/v1/sessions/${id}/export?agent=nobody`);
    expect(unknown.status).toBe(404);
    expect(((await json(unknown)).error as { code: string }).code).toBe("agent_not_found");
    for (const agent of ["", "x".repeat(65)]) {
      const bad = await s.call("GET", `/v1/sessions/${id}/export?agent=${agent}`);
      expect(bad.status, `agent "${agent.slice(0, 8)}"`).toBe(400);
    }
    // Another tenant's key sees no such session.
    const other = await s.call(
      "GET",
      `/v1/sessions/${id}/export?agent=planner`,
      undefined,
      s.otherKey,
    );
    expect(other.status).toBe(404);
    expect(await json(await s.call("GET", `/v1/sessions/${id}`))).toEqual(before);
  });
});
