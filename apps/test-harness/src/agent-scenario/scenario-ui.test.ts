import { describe, expect, it } from "vitest";
import { runScenario } from "../scenario/run-scenario.js";
import { parseScenario } from "../scenario/scenario-file.js";

/** A one-prompt scenario whose inline extension asks on session_start. */
function scenario(ui: unknown[] | undefined, expectUi: Record<string, unknown> = {}) {
  return parseScenario(
    JSON.stringify({
      version: 2,
      name: "ui script",
      agent: {
        targets: [{ provider: "scripted", turns: ["hi"] }],
        extensions: {
          ...(ui ? { ui } : {}),
          load: [
            {
              name: "asker",
              on: [
                {
                  event: "before_agent_start",
                  ask: { kind: "select", title: "Mode", options: ["fast", "careful"] },
                  notify: "asked",
                },
              ],
            },
          ],
        },
      },
      prompts: ["go"],
      expect: { result: { success: true }, extensions: { ui: expectUi } },
    }),
    "ui.json",
  );
}

describe("scripted UI answers in scenarios", () => {
  it("passes when every answer is asked for and matches its request", async () => {
    const result = await runScenario(
      scenario([{ select: "careful" }], {
        requests: [{ kind: "select", title: "Mode" }],
        notifications: [{ message: "asked", level: "info" }],
      }),
      "ui.json",
    );
    expect(result.failures).toEqual([]);
  });

  it.each([
    ["an answer never asked for", [{ select: "fast" }, { confirm: true }], /never asked for/],
    ["an answer of the wrong kind", [{ confirm: true }], /got the scripted answer/],
    ["a request past the script", [], /was not scripted/],
  ])("fails on %s, saying so", async (_name, ui, message) => {
    const result = await runScenario(scenario(ui), "ui.json");
    expect(result.failures.join("\n")).toMatch(message);
  });

  it("fails when the requests differ from the expected ones", async () => {
    const result = await runScenario(
      scenario([{ select: "fast" }], { requests: [{ kind: "confirm" }] }),
      "ui.json",
    );
    expect(result.failures.join("\n")).toMatch(/extensions\.ui\.requests: expected/);
  });

  it("refuses a malformed answer in the scenario file, naming it", () => {
    expect(() => scenario([{ choose: "fast" }])).toThrow(/ui\.json[\s\S]*agent\.extensions\.ui/);
  });
});
