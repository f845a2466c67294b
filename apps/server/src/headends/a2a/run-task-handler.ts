import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  Task,
  TaskStatus,
} from "@a2a-js/sdk";
import { Role, TaskState } from "@a2a-js/sdk";
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { AppDeps } from "../../app-deps.js";
import { ApiError, toApiError } from "../../errors/index.js";
import { isTerminal, type RunRecord, type RunStatus, runIdSchema } from "../../runs/run-record.js";
import { type HeadendRunEnd, RunFollower, startHeadendRun } from "../headend-run.js";
import { whenRunEnds } from "../run-end.js";

/** A text part. */
function textPart(text: string): Part {
  return {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
}

/** The agent's message carrying `text`. */
function agentMessage(text: string, taskId: string, contextId: string): Message {
  return {
    messageId: `${taskId}-answer`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A run's status as a task's state. */
function stateOf(status: RunStatus): TaskState {
  switch (status) {
    case "queued":
      return TaskState.TASK_STATE_SUBMITTED;
    case "running":
      return TaskState.TASK_STATE_WORKING;
    case "completed":
      return TaskState.TASK_STATE_COMPLETED;
    case "aborted":
    case "cancelled":
      return TaskState.TASK_STATE_CANCELED;
    default:
      return TaskState.TASK_STATE_FAILED;
  }
}

function status(state: TaskState, message?: Message): TaskStatus {
  return { state, message, timestamp: new Date().toISOString() };
}

/** A task (= a run) with its answer as the `answer` artifact when there is one. */
function taskOf(record: RunRecord, text: string | undefined, failure?: string): Task {
  const message =
    text !== undefined
      ? agentMessage(text, record.id, record.sessionId)
      : failure !== undefined
        ? agentMessage(failure, record.id, record.sessionId)
        : undefined;
  return {
    id: record.id,
    contextId: record.sessionId,
    status: status(stateOf(record.status), message),
    artifacts: text !== undefined ? [answerArtifact(text)] : [],
    history: [],
    metadata: { agent: record.agent },
  };
}

function answerArtifact(text: string) {
  return {
    artifactId: "answer",
    name: "answer",
    description: "The agent's answer",
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
  };
}

/** The text of a message's parts; other parts are refused. */
function promptOf(message: Message | undefined): string {
  if (!message) throw new RequestMalformedError("params.message is required");
  const texts = message.parts.map((part) => {
    if (part.content?.$case !== "text") {
      throw new RequestMalformedError("only text parts are supported; send the prompt as text");
    }
    return part.content.value;
  });
  const prompt = texts.join("\n");
  if (prompt.trim() === "") throw new RequestMalformedError("the message has no text");
  return prompt;
}

/**
 * A2A over the server's runs, for one tenant: a context is a session, a task is a run (its id
 * the run's id). Nothing is kept here; a task is read back from the run's record and its
 * answer entry.
 */
export class RunTaskHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: AppDeps,
    private readonly tenantId: string,
    private readonly card: AgentCard,
    /** The agent a message runs when its metadata names none. */
    private readonly defaultAgent: string | undefined,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError("no extended agent card");
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const { follower, record } = await this.start(params);
    if (params.configuration?.returnImmediately) return taskOf(record, undefined);
    const end = await follower.result(new AbortController().signal);
    if (!end) throw new TaskNotFoundError(`task ${record.id} ended without a record`);
    return this.finished(end);
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse> {
    const { follower, record } = await this.start(params);
    yield* this.follow(follower, record);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    const record = await this.record(params.id);
    if (!isTerminal(record.status)) return taskOf(record, undefined);
    return taskOf(record, await this.answerOf(record), record.error?.message);
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const record = await this.record(params.id);
    if (isTerminal(record.status)) {
      throw new TaskNotCancelableError(`task ${params.id} already ended (${record.status})`);
    }
    await this.deps.runs.abort(record.id, this.tenantId);
    const ended = (await whenRunEnds(this.deps, record.id)) ?? record;
    return taskOf(ended, undefined, `the task was cancelled (${ended.status})`);
  }

  async *resubscribe(params: { id: string }): AsyncGenerator<StreamResponse> {
    const record = await this.record(params.id);
    yield* this.follow(new RunFollower(this.deps, record.id, record.sessionId), record);
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError("listing tasks is not supported; get a task by its id");
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new UnsupportedOperationError("push notifications are not supported; stream instead");
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new UnsupportedOperationError("push notifications are not supported");
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new UnsupportedOperationError("push notifications are not supported");
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw new UnsupportedOperationError("push notifications are not supported");
  }

  /** Starts the run a message asks for, on its context's session (or a new one). */
  private async start(params: SendMessageRequest) {
    const prompt = promptOf(params.message);
    const metadata = { ...params.metadata, ...params.message?.metadata };
    const agent = typeof metadata.agent === "string" ? metadata.agent : this.defaultAgent;
    if (agent === undefined || !this.deps.agents.has(agent)) {
      throw new RequestMalformedError(
        `no agent "${String(agent)}"; the agent card's skills name the agents`,
      );
    }
    const contextId = params.message?.contextId || undefined;
    try {
      const sessionId = contextId ?? (await this.newSession());
      const record = await startHeadendRun(this.deps, {
        tenantId: this.tenantId,
        sessionId,
        agent,
        prompt,
      });
      return { record, follower: new RunFollower(this.deps, record.id, sessionId) };
    } catch (error) {
      if (toApiError(error).status === 404 && contextId !== undefined) {
        throw new TaskNotFoundError(`no context "${contextId}"`);
      }
      throw error;
    }
  }

  private async newSession(): Promise<string> {
    const session = await this.deps.store.create({ cwd: "/", tenant: this.tenantId });
    await session.close();
    return session.id;
  }

  /** The tenant's run a task id names. */
  private async record(taskId: string): Promise<RunRecord> {
    if (!runIdSchema.safeParse(taskId).success)
      throw new TaskNotFoundError(`no task "${taskId.slice(0, 100)}"`);
    try {
      return await this.deps.runs.get(taskId, this.tenantId);
    } catch (error) {
      if (ApiError.isInstance(error) && error.status === 404)
        throw new TaskNotFoundError(`no task "${taskId}"`);
      throw error;
    }
  }

  /** A finished run's answer text, read from its answer entry. */
  private async answerOf(record: RunRecord): Promise<string | undefined> {
    const entryId = (record.result as { finalReport?: { entryId?: string } } | undefined)
      ?.finalReport?.entryId;
    if (entryId === undefined) return undefined;
    try {
      const session = await this.deps.store.open(record.sessionId, {
        readOnly: true,
        tenant: this.tenantId,
      });
      try {
        const content = (
          session.getEntry(entryId) as { message?: { content?: unknown } } | undefined
        )?.message?.content;
        return Array.isArray(content)
          ? content
              .filter((b): b is { type: "text"; text: string } => b?.type === "text")
              .map((b) => b.text)
              .join("")
          : typeof content === "string"
            ? content
            : undefined;
      } finally {
        await session.close();
      }
    } catch {
      return undefined;
    }
  }

  private finished(end: HeadendRunEnd): Task {
    return end.ok
      ? taskOf(end.record, end.text)
      : taskOf(end.record, undefined, end.failure?.message ?? "the run failed");
  }

  /** A run's task, its answer as artifact chunks, and its end as the final status update. */
  private async *follow(follower: RunFollower, record: RunRecord): AsyncGenerator<StreamResponse> {
    const ids = { taskId: record.id, contextId: record.sessionId, metadata: undefined };
    yield { payload: { $case: "task", value: taskOf(record, undefined) } };
    yield {
      payload: {
        $case: "statusUpdate",
        value: { ...ids, status: status(TaskState.TASK_STATE_WORKING) },
      },
    };
    let first = true;
    for await (const piece of follower.follow(new AbortController().signal)) {
      if (piece.kind === "text") {
        yield {
          payload: {
            $case: "artifactUpdate",
            value: {
              ...ids,
              artifact: answerArtifact(piece.delta),
              append: !first,
              lastChunk: false,
            },
          },
        };
        first = false;
      } else if (piece.kind === "end") {
        const task = this.finished(piece.end);
        yield {
          payload: {
            $case: "artifactUpdate",
            value: { ...ids, artifact: answerArtifact(""), append: !first, lastChunk: true },
          },
        };
        yield { payload: { $case: "statusUpdate", value: { ...ids, status: task.status } } };
      }
    }
  }
}
