/**
 * The errors an agent throws at its caller, each with a stable `code` an HTTP layer maps to
 * a status without reading messages, and a static `isInstance()` that works across
 * duplicated copies of this package.
 *
 * Unlike every other Arbor error they do not extend `ArborError`: each extends the built-in
 * class it replaced (`TypeError` or `RangeError`), on purpose, so code that caught those
 * with `instanceof` keeps working (this package's tests pin it). They carry the one Arbor
 * marker all the same (stamped in the constructor), so `ArborError.isInstance()` is true
 * for them, and they share the group marker {@link isAgentError} looks for.
 */
import { arborErrorGuard, stampArborError } from "@arbor/session-store";

/** The group marker every error of an agent carries, whichever built-in class it extends. */
const AGENT_ERROR_GROUP = "@arbor/turn-runner:AgentError";

/** The stable codes of the errors an agent throws. */
export const AGENT_ERROR_CODES = [
  "agent_busy",
  "agent_closed",
  "invalid_prompt",
  "invalid_agent_options",
  "entry_not_found",
  "invalid_thinking_level",
  "invalid_subscription",
] as const;

/** One of {@link AGENT_ERROR_CODES}. */
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

/** What every error of an agent has, whichever built-in class it extends. */
export interface AgentError extends Error {
  readonly code: AgentErrorCode;
}

/** Tells whether a value is an error an agent threw, even one from another copy of this package. */
export const isAgentError: (value: unknown) => value is AgentError =
  arborErrorGuard<AgentError>(AGENT_ERROR_GROUP);

/** A prompt or a change was asked for while a prompt runs; await it or abort it first. */
export class AgentBusyError extends TypeError implements AgentError {
  readonly code = "agent_busy" as const;
  override readonly name = "AgentBusyError";

  /**
   * @param operation - what was refused (`prompt`, `setModel`, `navigateTree`, …)
   * @param message - what was wrong and what to do
   */
  constructor(
    readonly operation: string,
    message: string,
  ) {
    super(message);
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link AgentBusyError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<AgentBusyError>("@arbor/turn-runner:AgentBusyError");
}

/** The agent was shut down; create a new one. */
export class AgentClosedError extends TypeError implements AgentError {
  readonly code = "agent_closed" as const;
  override readonly name = "AgentClosedError";

  /**
   * @param operation - what was refused
   * @param message - what was wrong and what to do
   */
  constructor(
    readonly operation: string,
    message: string,
  ) {
    super(message);
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link AgentClosedError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<AgentClosedError>(
    "@arbor/turn-runner:AgentClosedError",
  );
}

/** What was handed to `prompt()` is not a valid prompt (an image without data, not an image). */
export class InvalidPromptError extends TypeError implements AgentError {
  readonly code = "invalid_prompt" as const;
  override readonly name = "InvalidPromptError";

  /**
   * @param field - the offending field (`images`, `images[2].mimeType`)
   * @param message - what was wrong and what to do
   */
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link InvalidPromptError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<InvalidPromptError>(
    "@arbor/turn-runner:InvalidPromptError",
  );
}

/** The agent's options cannot work: no targets, two tools of one name, a reserved name, … */
export class InvalidAgentOptionsError extends TypeError implements AgentError {
  readonly code = "invalid_agent_options" as const;
  override readonly name = "InvalidAgentOptionsError";

  /**
   * @param option - the option at fault (`targets`, `tools`, `outputSchema`, `summarizeBranch`)
   * @param message - what was wrong and what to do
   */
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message);
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link InvalidAgentOptionsError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<InvalidAgentOptionsError>(
    "@arbor/turn-runner:InvalidAgentOptionsError",
  );
}

/** A tree operation named an entry the session does not have. */
export class EntryNotFoundError extends RangeError implements AgentError {
  readonly code = "entry_not_found" as const;
  override readonly name = "EntryNotFoundError";

  /** @param entryId - the id that was not found */
  constructor(readonly entryId: string) {
    super(`no entry "${entryId}" in this session; pick an id from getTree()`);
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link EntryNotFoundError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<EntryNotFoundError>(
    "@arbor/turn-runner:EntryNotFoundError",
  );
}

/** `setThinkingLevel()` was given a level the agent does not know. */
export class InvalidThinkingLevelError extends RangeError implements AgentError {
  readonly code = "invalid_thinking_level" as const;
  override readonly name = "InvalidThinkingLevelError";

  /**
   * @param level - the level given
   * @param known - the levels there are
   */
  constructor(
    readonly level: string,
    known: readonly string[],
  ) {
    super(`unknown thinking level "${level}"; use one of ${known.join(", ")}`);
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link InvalidThinkingLevelError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<InvalidThinkingLevelError>(
    "@arbor/turn-runner:InvalidThinkingLevelError",
  );
}

/** `subscribe({ afterSeq })` was given something that is not a sequence number. */
export class InvalidSubscriptionError extends RangeError implements AgentError {
  readonly code = "invalid_subscription" as const;
  override readonly name = "InvalidSubscriptionError";

  /** @param afterSeq - the value given */
  constructor(readonly afterSeq: unknown) {
    super(
      `subscribe(): afterSeq must be a whole number of 0 or more (the seq of the last event seen), got ${String(afterSeq)}`,
    );
    stampArborError(this, new.target, [AGENT_ERROR_GROUP]);
  }

  /** True for an {@link InvalidSubscriptionError} from any copy of this package. */
  static readonly isInstance = arborErrorGuard<InvalidSubscriptionError>(
    "@arbor/turn-runner:InvalidSubscriptionError",
  );
}
