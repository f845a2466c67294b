import {
  type CommandOutcome,
  EXTENSION_EVENT_NAMES,
  type ExtensionAPI,
  type ExtensionContext,
  type ExtensionErrorEvent,
  type ExtensionEvent,
  ExtensionRunner,
} from "@arbor/orchestration";
import { ScriptedExtensionUI } from "@arbor/orchestration/test";
import { z } from "zod";
import { harnessFixturePath } from "./harness-fixture.js";
import { matchesSubset } from "./subset-match.js";

/*
 * Extensions in agent scenarios. A recorder extension is always loaded first: it notes
 * every event the runner emits (and every `extension_error`) in one ordered log, so a
 * scenario asserts when each event fires relative to the others. The scenario's own
 * extensions follow, in the order listed: scripted inline handlers, or TypeScript modules
 * from the harness's `fixtures/extensions/` loaded the way users load theirs (no build).
 */

/** The name of the recorder extension every scenario with extensions loads first. */
export const RECORDER_EXTENSION_NAME = "harness-recorder";

/** One scripted handler of an inline extension. */
export const scenarioExtensionHandlerSchema = z
  .object({
    event: z.enum(EXTENSION_EVENT_NAMES),
    /** Acts only on events whose fields match this subset (`{ toolName: bash }`). */
    when: z.record(z.string(), z.unknown()).optional(),
    /** Acts only on the first this-many matching events; later ones are observed only. */
    times: z.number().int().positive().optional(),
    /** Stores a `custom` entry (`appendEntry`) when it acts. */
    appendEntry: z
      .object({ customType: z.string().min(1), data: z.unknown().optional() })
      .strict()
      .optional(),
    /** Sends a `custom_message` (`sendMessage`) when it acts. */
    sendMessage: z
      .object({
        customType: z.string().min(1),
        content: z.string(),
        triggerTurn: z.boolean().optional(),
        deliverAs: z.enum(["steer", "followUp", "nextTurn"]).optional(),
      })
      .strict()
      .optional(),
    /** Sends a user message (`sendUserMessage`) when it acts. */
    sendUserMessage: z
      .object({ content: z.string(), deliverAs: z.enum(["steer", "followUp"]).optional() })
      .strict()
      .optional(),
    /** Sets the session title (`setTitle`) when it acts. */
    setTitle: z.string().min(1).optional(),
    /**
     * Asks the user (`ctx.ui.select/confirm/input`) when it acts; the answer (or `null` for
     * none) is logged as a `ui_answer:<json>` event.
     */
    ask: z
      .discriminatedUnion("kind", [
        z
          .object({ kind: z.literal("select"), title: z.string(), options: z.array(z.string()) })
          .strict(),
        z
          .object({
            kind: z.literal("confirm"),
            title: z.string(),
            message: z.string().default(""),
          })
          .strict(),
        z
          .object({
            kind: z.literal("input"),
            title: z.string(),
            placeholder: z.string().optional(),
          })
          .strict(),
      ])
      .optional(),
    /** With `ask` on `tool_call`: blocks the call unless the answer equals this value. */
    blockUnless: z.union([z.string(), z.boolean()]).optional(),
    /** Shows a notification (`ctx.ui.notify`) when it acts. */
    notify: z.string().min(1).optional(),
    /** Throws an Error with this message (after the calls above). */
    throws: z.string().optional(),
    /** Never settles: the runner's handler timeout must skip it. */
    hangs: z.boolean().default(false),
    /** Returned to the runner (JSON, checked against the event's result schema). */
    returns: z.unknown().optional(),
  })
  .strict();

/** One extension of a scenario: scripted handlers, or a module of `fixtures/extensions/`. */
export const scenarioExtensionSchema = z
  .object({
    name: z.string().min(1),
    /** A file in the harness's `fixtures/extensions/` (loaded by the runner, through jiti). */
    module: z.string().min(1).optional(),
    on: z.array(scenarioExtensionHandlerSchema).default([]),
  })
  .strict()
  .refine((value) => value.module === undefined || value.on.length === 0, {
    message: "an extension has either a module or scripted handlers (on), not both",
  });

/**
 * One scripted answer of the user, for the request of its kind, in order:
 * `{ select: b }`, `{ confirm: true }`, `{ input: text }`, `{ custom: value }`,
 * `{ dismiss: true }` (closed: no answer) or `{ ignore: true }` (nobody answers: the
 * request times out or is cancelled).
 */
export const scenarioUIAnswerSchema = z.union([
  z.object({ select: z.string() }).strict(),
  z.object({ confirm: z.boolean() }).strict(),
  z.object({ input: z.string() }).strict(),
  z.object({ custom: z.unknown() }).strict(),
  z.object({ dismiss: z.literal(true) }).strict(),
  z.object({ ignore: z.literal(true) }).strict(),
]);

/** The extensions of an agent scenario. */
export const scenarioExtensionsSchema = z
  .object({
    /** The runner's handler timeout, in ms. */
    timeoutMs: z.number().int().positive().default(1000),
    load: z.array(scenarioExtensionSchema).default([]),
    /**
     * The user's answers to the extensions' UI requests, in order (a scripted, interactive
     * UI). Without it there is no UI: `ctx.hasUI` is false and every request resolves to no
     * answer. Every answer must be asked for, and nothing more, or the scenario fails.
     */
    ui: z.array(scenarioUIAnswerSchema).optional(),
    /** How long a UI request waits, in ms (the runner's `uiTimeoutMs`). */
    uiTimeoutMs: z.number().int().positive().optional(),
  })
  .strict();

/** What a scenario expects of its extensions. */
export const expectedExtensionsSchema = z
  .object({
    /**
     * Every event the recorder saw, in order, over the whole scenario (runs of
     * `message_update` collapsed), as labels: the event type with its distinguishing field
     * (`session_start:startup`, `turn_start:0`, `message_end:assistant`, `tool_call:read`,
     * `model_select:failover`, `session_before_compact:threshold`), and
     * `extension_error:<extension>:<event>:<kind>` for every reported failure.
     */
    events: z.array(z.string()).optional(),
    /** Labels that must appear, in this relative order (others may come between). */
    eventsInOrder: z.array(z.string()).optional(),
    /** Labels that must not appear. */
    eventsExclude: z.array(z.string()).optional(),
    /** Fields of the nth event with this label (or type), matched as a subset. */
    payloads: z
      .array(
        z
          .object({
            event: z.string().min(1),
            /** Which of the events with that label; negative counts from the last. */
            nth: z.number().int().default(0),
            match: z.record(z.string(), z.unknown()),
          })
          .strict(),
      )
      .optional(),
    /** Every `extension_error`, in order; `error` is a substring of the report. */
    errors: z
      .array(
        z
          .object({
            extensionName: z.string(),
            event: z.string(),
            kind: z.string(),
            error: z.string().optional(),
          })
          .strict(),
      )
      .optional(),
    /** The outcome of each prompt's `command`, in order. */
    commands: z.array(z.record(z.string(), z.unknown())).optional(),
    /** What the scripted UI was asked and shown, in order, each matched as a subset. */
    ui: z
      .object({
        requests: z.array(z.record(z.string(), z.unknown())).optional(),
        notifications: z.array(z.record(z.string(), z.unknown())).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** The extensions of an agent scenario, with defaults applied. */
export type ScenarioExtensions = z.output<typeof scenarioExtensionsSchema>;
/** What a scenario expects of its extensions. */
export type ExpectedExtensions = z.output<typeof expectedExtensionsSchema>;
type ScenarioExtension = z.output<typeof scenarioExtensionSchema>;
type ScenarioHandler = z.output<typeof scenarioExtensionHandlerSchema>;

/** One event the recorder saw: its label and a JSON copy of its payload. */
export interface RecordedExtensionEvent {
  label: string;
  payload: Record<string, unknown>;
}

/** What the extensions of a scenario did, across reloads and forks. */
export class ExtensionLog {
  readonly events: RecordedExtensionEvent[] = [];
  readonly errors: ExtensionErrorEvent[] = [];
  readonly commands: CommandOutcome[] = [];
  /** The scripted UI, when the scenario scripts answers; shared by every runner of the scenario. */
  ui: ScriptedExtensionUI | undefined;

  /** Labels of every event, runs of `message_update` collapsed to one. */
  labels(): string[] {
    const labels: string[] = [];
    for (const { label } of this.events) {
      if (label.startsWith("message_update") && labels.at(-1) === label) continue;
      labels.push(label);
    }
    return labels;
  }

  record(label: string, payload: unknown): void {
    this.events.push({ label, payload: JSON.parse(JSON.stringify(payload ?? {})) });
  }
}

/** The label of an event: its type and the field that tells events of that type apart. */
export function extensionEventLabel(event: ExtensionEvent): string {
  switch (event.type) {
    case "session_start":
      return `session_start:${event.reason}`;
    case "turn_start":
    case "turn_end":
      return `${event.type}:${event.turnIndex}`;
    case "message_start":
    case "message_update":
    case "message_end":
      return `${event.type}:${event.message.role}`;
    case "tool_call":
    case "tool_result":
      return `${event.type}:${event.toolName}`;
    case "model_select":
      return `model_select:${event.source}`;
    case "session_before_compact":
      return `session_before_compact:${event.reason}`;
    default:
      return event.type;
  }
}

/** A module of the harness's extension fixtures (`fixtures/extensions/`). */
export function extensionFixturePath(file: string): string {
  return harnessFixturePath("extensions", file);
}

function recorder(log: ExtensionLog) {
  return (arbor: ExtensionAPI): void => {
    for (const name of EXTENSION_EVENT_NAMES) {
      arbor.on(name, (event) => {
        log.record(extensionEventLabel(event), event);
      });
    }
  };
}

async function act(
  arbor: ExtensionAPI,
  handler: ScenarioHandler,
  ctx: ExtensionContext,
  log: ExtensionLog,
): Promise<unknown> {
  if (handler.notify !== undefined) ctx.ui.notify(handler.notify);
  let answer: unknown;
  if (handler.ask) {
    const { ask } = handler;
    answer =
      ask.kind === "select"
        ? await ctx.ui.select(ask.title, ask.options)
        : ask.kind === "confirm"
          ? await ctx.ui.confirm(ask.title, ask.message)
          : await ctx.ui.input(ask.title, ask.placeholder);
    log.record(`ui_answer:${JSON.stringify(answer ?? null)}`, { answer: answer ?? null });
    if (handler.blockUnless !== undefined && answer !== handler.blockUnless)
      return { block: true, reason: `the user answered ${JSON.stringify(answer ?? null)}` };
  }
  if (handler.appendEntry) {
    await arbor.appendEntry(handler.appendEntry.customType, handler.appendEntry.data);
  }
  if (handler.sendMessage) {
    const { customType, content, triggerTurn, deliverAs } = handler.sendMessage;
    await arbor.sendMessage(
      { customType, content, display: true },
      {
        ...(triggerTurn === undefined ? {} : { triggerTurn }),
        ...(deliverAs === undefined ? {} : { deliverAs }),
      },
    );
  }
  if (handler.sendUserMessage) {
    const { content, deliverAs } = handler.sendUserMessage;
    await arbor.sendUserMessage(content, deliverAs === undefined ? {} : { deliverAs });
  }
  if (handler.setTitle !== undefined) await arbor.setTitle(handler.setTitle);
  if (handler.throws !== undefined) throw new Error(handler.throws);
  if (handler.hangs) await new Promise(() => undefined);
  return handler.returns;
}

function scripted(extension: ScenarioExtension, log: ExtensionLog) {
  return (arbor: ExtensionAPI): void => {
    for (const handler of extension.on) {
      let acted = 0;
      arbor.on(handler.event, (event, ctx) => {
        if (handler.when !== undefined && !matchesSubset(handler.when, event)) return undefined;
        if (handler.times !== undefined && acted >= handler.times) return undefined;
        acted++;
        return act(arbor, handler, ctx, log) as never;
      });
    }
  };
}

/**
 * Makes and loads the runner of one agent (one host) of a scenario: the recorder first, then
 * the scenario's extensions in order. Each agent (after a reload) gets a new runner; the
 * log is shared, so it covers the whole scenario.
 */
export async function loadScenarioExtensions(
  config: ScenarioExtensions,
  log: ExtensionLog,
  cwd: string,
): Promise<ExtensionRunner> {
  if (config.ui !== undefined) log.ui ??= new ScriptedExtensionUI(config.ui);
  const runner = new ExtensionRunner({
    cwd,
    handlerTimeoutMs: config.timeoutMs,
    ...(log.ui ? { ui: log.ui } : {}),
    ...(config.uiTimeoutMs !== undefined ? { uiTimeoutMs: config.uiTimeoutMs } : {}),
    onError: (error) => {
      log.errors.push(error);
      log.record(`extension_error:${error.extensionName}:${error.event}:${error.kind}`, error);
    },
  });
  await runner.addExtension(RECORDER_EXTENSION_NAME, recorder(log));
  for (const extension of config.load) {
    if (extension.module !== undefined) {
      await runner.load({
        name: extension.name,
        path: extensionFixturePath(extension.module),
        origin: "path",
      });
    } else {
      await runner.addExtension(extension.name, scripted(extension, log));
    }
  }
  return runner;
}

/** Compares what the extensions of a scenario did with what it expects; one line per mismatch. */
export function checkExtensionExpectations(
  expected: ExpectedExtensions,
  log: ExtensionLog,
): string[] {
  const failures: string[] = [];
  const labels = log.labels();
  const mismatch = (what: string, want: unknown, got: unknown) => {
    if (JSON.stringify(want) !== JSON.stringify(got))
      failures.push(`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  };
  if (expected.events !== undefined) mismatch("extensions.events", expected.events, labels);
  if (expected.eventsInOrder !== undefined) {
    let from = 0;
    for (const label of expected.eventsInOrder) {
      const at = labels.indexOf(label, from);
      if (at < 0) {
        failures.push(
          `extensions.eventsInOrder: no ${label} after position ${from} in ${JSON.stringify(labels)}`,
        );
        break;
      }
      from = at + 1;
    }
  }
  for (const label of expected.eventsExclude ?? []) {
    if (labels.includes(label)) failures.push(`extensions.events: expected no ${label}, got one`);
  }
  for (const { event, nth, match } of expected.payloads ?? []) {
    const candidates = log.events.filter(
      (recorded) => recorded.label === event || recorded.payload.type === event,
    );
    const found = candidates.at(nth);
    if (!found) {
      failures.push(`extensions.payloads: no ${event} event #${nth} (${candidates.length} seen)`);
    } else if (!matchesSubset(match, found.payload)) {
      failures.push(
        `extensions.payloads[${event} #${nth}]: expected ${JSON.stringify(match)}, got ${JSON.stringify(found.payload)}`,
      );
    }
  }
  if (expected.errors !== undefined) {
    const ok =
      log.errors.length === expected.errors.length &&
      expected.errors.every((want, i) => {
        const got = log.errors[i];
        if (!got) return false;
        const { error, ...fields } = want;
        return matchesSubset(fields, got) && (error === undefined || got.error.includes(error));
      });
    if (!ok) mismatch("extensions.errors", expected.errors, log.errors);
  }
  failures.push(...checkUIExpectations(expected.ui, log.ui));
  if (expected.commands !== undefined) {
    const ok =
      log.commands.length === expected.commands.length &&
      expected.commands.every((want, i) => matchesSubset(want, log.commands[i]));
    if (!ok) mismatch("extensions.commands", expected.commands, log.commands);
  }
  return failures;
}

/** The scripted UI's own problems (unasked answers, requests past the script) and the expected requests. */
function checkUIExpectations(
  expected: ExpectedExtensions["ui"],
  ui: ScriptedExtensionUI | undefined,
): string[] {
  const failures: string[] = [];
  if (ui) {
    try {
      ui.assertDone();
    } catch (error) {
      failures.push(`extensions.ui: ${(error as Error).message}`);
    }
  }
  const compare = (what: string, want: Record<string, unknown>[] | undefined, got: unknown[]) => {
    if (want === undefined) return;
    const ok = got.length === want.length && want.every((item, i) => matchesSubset(item, got[i]));
    if (!ok)
      failures.push(
        `extensions.ui.${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
      );
  };
  compare("requests", expected?.requests, ui?.requests ?? []);
  compare("notifications", expected?.notifications, ui?.notifications ?? []);
  return failures;
}
