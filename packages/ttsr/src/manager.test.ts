import { describe, expect, it } from "vitest";
import { TtsrRuleError } from "./errors.js";
import type { TtsrInjectionRecord } from "./injection-record.js";
import { TtsrManager } from "./manager.js";
import type { TtsrSource } from "./source.js";
import { makeRule } from "./test-rules.js";

const text: TtsrSource = { kind: "text" };
const names = (matches: { rule: { name: string } }[]) => matches.map((m) => m.rule.name);

/** Streams `output` as one text message in 3-character deltas and returns what fired. */
function streamMessage(ttsr: TtsrManager, output: string): string[] {
  ttsr.resetBuffer();
  const fired: string[] = [];
  for (let i = 0; i < output.length; i += 3) {
    fired.push(...names(ttsr.checkDelta(output.slice(i, i + 3), text)));
  }
  fired.push(...names(ttsr.checkFinal(text)));
  return fired;
}

describe("TtsrManager", () => {
  it("works as the README example says", () => {
    const ttsr = new TtsrManager({ maxInterruptsPerTurn: 3, maxInterruptsPerSession: 20 });
    ttsr.addRule({
      name: "no-any",
      path: "/repo/.arbor/rules/no-any.md",
      content: "Do not use `any`; use `unknown` and narrow it.",
      condition: "\\bany\\b",
    });
    ttsr.resetBuffer();
    expect(ttsr.checkDelta("const x: any", text)).toEqual([]);
    const matches = ttsr.checkDelta(" = 1;", text);
    expect(names(matches)).toEqual(["no-any"]);
    expect(ttsr.markInjected(names(matches))).toEqual([{ rule: "no-any", turn: 0, interrupt: 0 }]);
    expect(ttsr.checkFinal(text)).toEqual([]);
    ttsr.onTurnEnd();
    expect(ttsr.turn).toBe(1);
  });

  it("returns every rule that matches, batched, with settings resolved", () => {
    const ttsr = new TtsrManager({ contextMode: "keep" });
    ttsr.addRule(makeRule({ name: "no-log", condition: "console\\.log" }));
    ttsr.addRule(makeRule({ name: "no-debugger", condition: ["debugger;", "(?i)DEBUGGER"] }));
    ttsr.addRule(makeRule({ name: "unrelated", condition: "zzz" }));
    expect(ttsr.checkDelta("console.lo", text)).toEqual([]);
    const matches = ttsr.checkDelta("g(x); debugger;", text);
    expect(names(matches)).toEqual(["no-log", "no-debugger"]);
    expect(matches[0]?.rule).toMatchObject({
      repeatMode: "once",
      contextMode: "keep",
      interruptMode: "always",
      path: "/repo/.arbor/rules/no-log.md",
    });
  });

  it("reports a rule once per message, and not on other streams of that message", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "rm", condition: "rm -rf" }));
    expect(names(ttsr.checkDelta("rm -rf /", text))).toEqual(["rm"]);
    expect(names(ttsr.checkDelta(" and rm -rf again", text))).toEqual([]);
    const tool: TtsrSource = { kind: "tool", id: "c1", name: "bash" };
    expect(names(ttsr.checkDelta("rm -rf /", tool))).toEqual([]);
    ttsr.resetBuffer();
    expect(names(ttsr.checkDelta("rm -rf /", tool))).toEqual(["rm"]);
  });

  it("keeps each tool call in its own stream", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "force", condition: "push --force" }));
    const a: TtsrSource = { kind: "tool", id: "a", name: "bash" };
    const b: TtsrSource = { kind: "tool", id: "b", name: "bash" };
    expect(ttsr.checkDelta("git push --", a)).toEqual([]);
    expect(ttsr.checkDelta("force", b)).toEqual([]);
    expect(names(ttsr.checkDelta("force", a))).toEqual(["force"]);
  });

  it("decides end-of-text patterns at block end", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "trailing-todo", condition: "TODO\\s*$" }));
    expect(ttsr.checkDelta("done. TODO", text)).toEqual([]);
    expect(names(ttsr.checkFinal(text))).toEqual(["trailing-todo"]);
  });

  it("honours scopes, tool names, path globs and interrupt modes", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "think", condition: "guess", scope: "thinking" }));
    ttsr.addRule(makeRule({ name: "ts-any", condition: ": any", scope: "tool:edit(src/**/*.ts)" }));
    ttsr.addRule(makeRule({ name: "md", condition: "lorem", globs: ["*.md"] }));
    ttsr.addRule(makeRule({ name: "prose", condition: "sorry", interruptMode: "prose-only" }));
    expect(names(ttsr.checkDelta("guess sorry", { kind: "thinking" }))).toEqual(["think"]);
    expect(names(ttsr.checkDelta("I guess, sorry", text))).toEqual(["prose"]);
    ttsr.resetBuffer();
    const edit = (paths?: string[]): TtsrSource => ({ kind: "tool", id: "e", name: "edit", paths });
    expect(names(ttsr.checkDelta("let x: any lorem sorry", edit()))).toEqual([]);
    // The paths arrive later in the call: the rules that already matched fire then.
    expect(names(ttsr.checkDelta("", edit(["/repo/src/a/b.ts", "README.md"])))).toEqual([
      "ts-any",
      "md",
    ]);
    const write: TtsrSource = { kind: "tool", id: "w", name: "write", paths: ["src/x.ts"] };
    expect(names(ttsr.checkDelta("x: any", write))).toEqual([]);
  });

  it("never fires a disabled rule", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "off", condition: "x", enabled: false }));
    expect(ttsr.checkDelta("x", text)).toEqual([]);
    expect(ttsr.checkFinal(text)).toEqual([]);
  });

  it("fires a `once` rule only once per session", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "once", condition: "bad" }));
    expect(streamMessage(ttsr, "bad")).toEqual(["once"]);
    ttsr.markInjected(["once"]);
    for (let turn = 0; turn < 20; turn++) {
      ttsr.onTurnEnd();
      expect(streamMessage(ttsr, "bad")).toEqual([]);
    }
  });

  it("fires an `after-gap` rule again once the gap in completed turns has passed", () => {
    const ttsr = new TtsrManager({ maxInterruptsPerSession: 100 });
    ttsr.addRule(
      makeRule({ name: "gap", condition: "bad", repeatMode: "after-gap", repeatGap: 2 }),
    );
    const firedAt: number[] = [];
    for (let turn = 0; turn < 9; turn++) {
      if (streamMessage(ttsr, "so bad").length > 0) {
        firedAt.push(ttsr.turn);
        ttsr.markInjected(["gap"]);
      }
      ttsr.onTurnEnd();
    }
    expect(firedAt).toEqual([0, 2, 4, 6, 8]);
  });

  it("silences a rule after it was injected `silenceAfter` times", () => {
    const ttsr = new TtsrManager({ silenceAfter: 2, maxInterruptsPerSession: 100 });
    ttsr.addRule(
      makeRule({ name: "noisy", condition: "x", repeatMode: "after-gap", repeatGap: 1 }),
    );
    let fired = 0;
    for (let turn = 0; turn < 6; turn++) {
      if (streamMessage(ttsr, "x").length > 0) {
        fired++;
        ttsr.markInjected(["noisy"]);
      }
      ttsr.onTurnEnd();
    }
    expect(fired).toBe(2);
  });

  it("stops interrupting when the turn or session budget is spent", () => {
    const ttsr = new TtsrManager({ maxInterruptsPerTurn: 2, maxInterruptsPerSession: 3 });
    for (const name of ["r1", "r2", "r3", "r4"]) ttsr.addRule(makeRule({ name }));
    expect(streamMessage(ttsr, "r1 r2")).toEqual(["r1", "r2"]);
    ttsr.markInjected(["r1", "r2"]); // one interrupt carrying two rules
    expect(streamMessage(ttsr, "r3")).toEqual(["r3"]);
    ttsr.markInjected(["r3"]);
    expect(streamMessage(ttsr, "r4")).toEqual([]); // two interrupts this turn
    ttsr.onTurnEnd();
    expect(streamMessage(ttsr, "r4")).toEqual(["r4"]);
    ttsr.markInjected(["r4"]);
    ttsr.onTurnEnd();
    ttsr.addRule(makeRule({ name: "r5" }));
    expect(streamMessage(ttsr, "r5")).toEqual([]); // three interrupts this session
  });

  it("rejects an invalid or duplicate rule with a TtsrRuleError", () => {
    const ttsr = new TtsrManager();
    ttsr.addRule(makeRule({ name: "a" }));
    expect(() => ttsr.addRule(makeRule({ name: "a" }))).toThrow(/already added/);
    const error = (() => {
      try {
        ttsr.addRule(makeRule({ name: "bad", condition: "(unclosed" }));
      } catch (e) {
        return e;
      }
    })();
    expect(TtsrRuleError.isInstance(error)).toBe(true);
    expect(String(error)).toMatch(/rule "bad": invalid condition \(unclosed/);
  });
});

describe("TtsrManager restore", () => {
  /** A scripted session: which rules the model output triggers in each turn. */
  const script = ["gap once", "gap", "", "gap once", "gap", "gap", "", "gap once", "gap", "gap"];

  function addRules(ttsr: TtsrManager) {
    ttsr.addRule(makeRule({ name: "gap", repeatMode: "after-gap", repeatGap: 3 }));
    ttsr.addRule(makeRule({ name: "once" }));
  }

  function playTurn(ttsr: TtsrManager, output: string, log: TtsrInjectionRecord[]): string[] {
    const fired = streamMessage(ttsr, output);
    log.push(...ttsr.markInjected(fired));
    ttsr.onTurnEnd();
    return fired;
  }

  it("behaves after a reload exactly as if the process had never stopped", () => {
    for (let stopAfter = 0; stopAfter <= script.length; stopAfter++) {
      const options = { silenceAfter: 3, maxInterruptsPerSession: 4 };
      const continuous = new TtsrManager(options);
      addRules(continuous);
      const expected = script.map((output) => playTurn(continuous, output, []));

      const first = new TtsrManager(options);
      addRules(first);
      const persisted: TtsrInjectionRecord[] = [];
      const actual = script.slice(0, stopAfter).map((output) => playTurn(first, output, persisted));
      const reloaded = new TtsrManager(options);
      addRules(reloaded);
      reloaded.restoreInjected(JSON.parse(JSON.stringify(persisted)), { turn: stopAfter });
      actual.push(...script.slice(stopAfter).map((output) => playTurn(reloaded, output, [])));
      expect(actual, `stopped after turn ${stopAfter}`).toEqual(expected);
    }
  });

  it("restores within a turn: an interrupt already spent this turn still counts", () => {
    const ttsr = new TtsrManager({ maxInterruptsPerTurn: 1 });
    ttsr.addRule(makeRule({ name: "a" }));
    ttsr.restoreInjected([{ rule: "b", turn: 4, interrupt: 0 }], { turn: 4 });
    expect(streamMessage(ttsr, "a")).toEqual([]);
    ttsr.onTurnEnd();
    expect(streamMessage(ttsr, "a")).toEqual(["a"]);
  });

  it("rejects a malformed record", () => {
    expect(() => new TtsrManager().restoreInjected([{ rule: "a" }])).toThrow();
  });
});
