import { arborErrorGuard } from "@arbor/session-store";
import { OrchestrationError } from "./orchestration-error.js";

/** One problem of an agent definition: the key at fault (dotted path) and why. */
export interface DefinitionProblem {
  /** The key at fault, e.g. `limits.maxTurns`, `models[1]`; `(file)`, `(front matter)` or `(body)` for the file itself. */
  key: string;
  /** What is wrong, in words. */
  reason: string;
}

/**
 * An agent definition cannot be used: the file is missing, not text, too big, its front
 * matter is not valid YAML, a key is unknown or has the wrong type, or the body is empty.
 * The message names the file, the key and the reason.
 */
export class AgentDefinitionError extends OrchestrationError {
  /** The file the definition came from, or `<inline>` for a definition given in code. */
  readonly file: string;
  /** Every problem found, the first one in `key` and `reason`. */
  readonly problems: readonly DefinitionProblem[];

  /**
   * @param file - the agent file, or `<inline>`
   * @param problems - at least one problem
   */
  constructor(file: string, problems: readonly DefinitionProblem[], options?: ErrorOptions) {
    const shown = problems
      .slice(0, 5)
      .map((problem) => `${problem.key}: ${problem.reason}`)
      .join("; ");
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : "";
    super("invalid_agent_definition", `agent definition ${file}: ${shown}${more}`, options);
    this.name = "AgentDefinitionError";
    this.file = file;
    this.problems = problems;
  }

  /** The key of the first problem. */
  get key(): string {
    return this.problems[0]?.key ?? "(file)";
  }

  /** The reason of the first problem. */
  get reason(): string {
    return this.problems[0]?.reason ?? "invalid";
  }

  /** True for an {@link AgentDefinitionError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<AgentDefinitionError>(
    "@arbor/orchestration:AgentDefinitionError",
  );
}
