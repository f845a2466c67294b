import { ArborError } from "@arbor/session-store";
import { beforeAll, describe, expect, it } from "vitest";
import { CassetteNotFoundError } from "../src/cassette/cassette-not-found-error.js";
import { ScenarioFileError } from "../src/scenario/scenario-file.js";

/** Every entry point of every published package, as users import them. */
const ENTRY_POINTS: Record<string, () => Promise<Record<string, unknown>>> = {
  "@arbor/session-store": () => import("@arbor/session-store"),
  "@arbor/session-store/import": () => import("@arbor/session-store/import"),
  "@arbor/session-store/test": () => import("@arbor/session-store/test"),
  "@arbor/session-store-postgres": () => import("@arbor/session-store-postgres"),
  "@arbor/ttsr": () => import("@arbor/ttsr"),
  "@arbor/ttsr/loader": () => import("@arbor/ttsr/loader"),
  "@arbor/ttsr/internal": () => import("@arbor/ttsr/internal"),
  "@arbor/providers": () => import("@arbor/providers"),
  "@arbor/providers/openai": () => import("@arbor/providers/openai"),
  "@arbor/providers/anthropic": () => import("@arbor/providers/anthropic"),
  "@arbor/providers/test": () => import("@arbor/providers/test"),
  "@arbor/extensions-api": () => import("@arbor/extensions-api"),
  "@arbor/extensions-api/test": () => import("@arbor/extensions-api/test"),
  "@arbor/turn-runner": () => import("@arbor/turn-runner"),
  "@arbor/turn-runner/test": () => import("@arbor/turn-runner/test"),
  "@arbor/orchestration": () => import("@arbor/orchestration"),
  "@arbor/html-export": () => import("@arbor/html-export"),
  "@arbor/workspace": () => import("@arbor/workspace"),
};

const AGENT_ERROR_REASON =
  "replaced a built-in error that callers caught with instanceof; keeps TypeError or RangeError as its base (pinned by turn-runner's tests)";
const PROVIDERS_REASON =
  "@arbor/providers' main entry loads zod alone (pinned by its entry-imports test), so it cannot import ArborError";

/**
 * The error classes that carry the Arbor marker (so `ArborError.isInstance()` is true for
 * them, with a stable code and a guard of their own) without extending `ArborError`, and why.
 */
const MARKER_ONLY: Record<string, string> = {
  "@arbor/turn-runner:AgentBusyError": AGENT_ERROR_REASON,
  "@arbor/turn-runner:AgentClosedError": AGENT_ERROR_REASON,
  "@arbor/turn-runner:InvalidPromptError": AGENT_ERROR_REASON,
  "@arbor/turn-runner:InvalidAgentOptionsError": AGENT_ERROR_REASON,
  "@arbor/turn-runner:EntryNotFoundError": AGENT_ERROR_REASON,
  "@arbor/turn-runner:InvalidThinkingLevelError": AGENT_ERROR_REASON,
  "@arbor/turn-runner:InvalidSubscriptionError": AGENT_ERROR_REASON,
  "@arbor/providers:ProvidersError": PROVIDERS_REASON,
  "@arbor/providers:ModelConfigError": PROVIDERS_REASON,
  "@arbor/providers:InvalidApiKeyError": PROVIDERS_REASON,
  "@arbor/providers:ScriptExhaustedError": PROVIDERS_REASON,
  "@arbor/providers:FakeCacheRequestError": PROVIDERS_REASON,
};

/**
 * Constructor arguments for the classes that need more than strings; every other class is
 * built from `DEFAULT_ARGUMENTS`. Keyed by `<entry point's package>:<export name>`.
 */
const SAMPLE_ARGUMENTS: Record<string, unknown[]> = {
  "@arbor/session-store-postgres:DatabaseUnavailableError": [
    "pg://x",
    { cause: new Error("refused"), waitedMs: 10 },
  ],
  "@arbor/session-store:SessionLockedError": ["/s.jsonl", 42],
  "@arbor/session-store-postgres:DuplicateEntryError": ["pg://x", ["e1"]],
  "@arbor/turn-runner:InvalidThinkingLevelError": ["extreme", ["low", "high"]],
  "@arbor/turn-runner:McpServersStartError": [[]],
  "@arbor/orchestration:AgentDefinitionError": ["a.md", [{ key: "name", reason: "missing" }]],
  "@arbor/orchestration:UnknownProviderError": ["nope", ["openai"]],
};
const DEFAULT_ARGUMENTS = ["sample", "sample", "sample", "sample"];

type ErrorClass = (new (...args: unknown[]) => Error) & { isInstance?: unknown };

interface FoundClass {
  /** `<package>:<export name>`, the package without the entry point's subpath. */
  key: string;
  type: ErrorClass;
}

const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === "function" &&
  typeof value.prototype === "object" &&
  value.prototype !== null &&
  value.prototype instanceof Error;

const packageOf = (entry: string) => entry.split("/").slice(0, 2).join("/");

/** Every distinct error class the entry points export, under its package and name. */
async function exportedErrorClasses(): Promise<FoundClass[]> {
  const found = new Map<ErrorClass, FoundClass>();
  for (const [entry, load] of Object.entries(ENTRY_POINTS)) {
    for (const [name, value] of Object.entries(await load())) {
      if (isErrorClass(value) && value !== (ArborError as unknown) && !found.has(value)) {
        found.set(value, { key: `${packageOf(entry)}:${name}`, type: value });
      }
    }
  }
  return [...found.values()];
}

function sample({ key, type }: FoundClass): Error {
  return new type(...(SAMPLE_ARGUMENTS[key] ?? DEFAULT_ARGUMENTS));
}

let classes: FoundClass[] = [];

describe("the error classes every package exports", () => {
  beforeAll(async () => {
    classes = await exportedErrorClasses();
  }, 60_000);

  it("are found on the packages' entry points", () => {
    const keys = classes.map((found) => found.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        "@arbor/session-store:SessionNotFoundError",
        "@arbor/session-store:SessionImportError",
        "@arbor/session-store-postgres:SessionLeaseLostError",
        "@arbor/ttsr:TtsrRuleError",
        "@arbor/providers:ProvidersError",
        "@arbor/extensions-api:ExtensionApiError",
        "@arbor/turn-runner:McpError",
        "@arbor/orchestration:OrchestrationError",
        "@arbor/html-export:ChildOptionsError",
      ]),
    );
    for (const kept of Object.keys(MARKER_ONLY)) expect(keys).toContain(kept);
  });

  it("extend ArborError, and none is a TypeError or a RangeError by accident", () => {
    const wrong: string[] = [];
    for (const { key, type } of classes) {
      const builtIn = type.prototype instanceof TypeError || type.prototype instanceof RangeError;
      const reason = MARKER_ONLY[key];
      if (reason !== undefined) {
        if (type.prototype instanceof ArborError) {
          wrong.push(`${key} extends ArborError now: remove it from MARKER_ONLY`);
        }
        if (builtIn && reason !== AGENT_ERROR_REASON) {
          wrong.push(`${key} extends TypeError or RangeError`);
        }
        continue;
      }
      if (!(type.prototype instanceof ArborError)) wrong.push(`${key} does not extend ArborError`);
      if (builtIn) wrong.push(`${key} extends TypeError or RangeError`);
    }
    expect(wrong).toEqual([]);
  });

  it("carry a stable code, their class's name and a guard of their own", () => {
    const wrong: string[] = [];
    for (const found of classes) {
      const { key, type } = found;
      if (!Object.hasOwn(type, "isInstance") || typeof type.isInstance !== "function") {
        wrong.push(`${key} declares no isInstance guard of its own`);
        continue;
      }
      const error = sample(found);
      const code = (error as { code?: unknown }).code;
      if (typeof code !== "string" || code === "") wrong.push(`${key} has no code`);
      if (error.name !== key.slice(key.indexOf(":") + 1)) {
        wrong.push(`${key} is named "${error.name}"`);
      }
      if (!ArborError.isInstance(error)) wrong.push(`${key} carries no Arbor marker`);
      if (type.isInstance(error) !== true) wrong.push(`${key}.isInstance misses its own error`);
    }
    expect(wrong).toEqual([]);
  });

  it("answer isInstance exactly as instanceof does, class by class", () => {
    const wrong: string[] = [];
    for (const made of classes) {
      const error = sample(made);
      for (const asked of classes) {
        const guard = asked.type.isInstance;
        const answer = typeof guard === "function" ? guard(error) : "no guard";
        if (answer !== error instanceof asked.type) {
          wrong.push(`${asked.key}.isInstance(new ${made.key}) is ${answer}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("the harness's own errors", () => {
  it("extend ArborError with a stable code, their class's name and a guard of their own", () => {
    const samples: Array<[{ name: string; isInstance(value: unknown): boolean }, Error]> = [
      [CassetteNotFoundError, new CassetteNotFoundError("key", "/c.json")],
      [ScenarioFileError, new ScenarioFileError("/s.yaml", "not YAML")],
    ];
    for (const [type, error] of samples) {
      expect(error, type.name).toBeInstanceOf(ArborError);
      expect(error, type.name).not.toBeInstanceOf(TypeError);
      expect((error as ArborError).code, type.name).toMatch(/^[a-z_]+$/);
      expect(error.name).toBe(type.name);
      for (const [other] of samples) expect(other.isInstance(error)).toBe(other === type);
    }
  });
});
