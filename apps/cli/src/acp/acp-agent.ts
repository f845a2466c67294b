import {
  type AgentApp,
  type AgentContext,
  type AuthMethod,
  agent as acpAgent,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import type { McpServerConfig } from "@arbor/orchestration";
import { type CliContext, type ModelSelection, selectModel } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { runOverridesOf } from "../commands/run-overrides.js";
import { loadConfig, providersFromEnv, resolveProvider } from "../config/index.js";
import { CliSessionStore, openCliAgent } from "../host/index.js";
import { sessionDirFor } from "../paths.js";
import { acpExtensionUI } from "./acp-extension-ui.js";
import { acpApprovalAsker, DEFAULT_PERMISSION_TIMEOUT_MS } from "./acp-permissions.js";
import { AcpSession } from "./acp-session.js";
import { clientTools } from "./client-tools.js";

/** Options of {@link createAcpAgent}. */
export interface AcpAgentOptions {
  /** The CLI's context; each session runs with its own working directory. */
  context: CliContext;
  version: string;
  /** Writes a line to the log (stderr: stdout is the protocol's). */
  log: (message: string) => void;
  /** How long a permission request waits for the editor. */
  permissionTimeoutMs?: number;
}

/** The ACP agent and what it keeps open. */
export interface AcpAgent {
  app: AgentApp;
  /** Aborts every running prompt and closes every session (their locks are released). */
  closeAll(): Promise<void>;
}

/**
 * Arbor as an ACP agent: each ACP session is an agent host on one Arbor session, set up
 * the way `arbor` sets up its agent (`openCliAgent`: trust, rules, extensions, project
 * context, MCP servers, approvals, the model), with the editor's MCP servers added, the
 * editor's files and terminal as the coding tools when it offers them, and approvals asked
 * as permission requests.
 */
export function createAcpAgent(options: AcpAgentOptions): AcpAgent {
  const { context, log } = options;
  const sessions = new Map<string, AcpSession>();
  const opening = new Set<Promise<unknown>>();
  const store = new CliSessionStore({
    sessionsRoot: context.paths.sessionsRoot,
    sessionDirFor: (cwd) => sessionDirFor(context.paths, cwd),
  });
  let clientCapabilities: ClientCapabilities | undefined;
  let chosenProvider = context.args.provider;
  const timeoutMs = options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS;
  // --system-prompt, --append-system-prompt, --thinking and --max-turns, as `arbor run` takes them.
  const { noSession: _memory, ...overrides } = runOverridesOf(context);

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  const contextFor = (cwd: string): CliContext => ({
    ...context,
    io: { ...context.io, cwd },
    args: {
      ...context.args,
      ...(chosenProvider !== undefined ? { provider: chosenProvider } : {}),
    },
  });

  const select = async (cwd: string): Promise<ModelSelection> => {
    try {
      return await selectModel(contextFor(cwd));
    } catch (error) {
      if (CliError.isInstance(error)) {
        throw RequestError.authRequired(
          { hint: error.hint },
          `${error.message} ${error.hint ?? ""}`.trim(),
        );
      }
      throw error;
    }
  };

  const open = async (
    client: AgentContext,
    choice: { create: { cwd: string } } | { sessionId: string },
    cwd: string,
    mcpServers: readonly McpServer[] | undefined,
  ): Promise<AcpSession> => {
    if (!cwd.startsWith("/"))
      throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
    const selection = await select(cwd);
    const config = {
      ...selection.config,
      mcpServers: [...(selection.config.mcpServers ?? []), ...(mcpServers?.map(mcpConfigOf) ?? [])],
    };
    const ref = { id: "" };
    let session: AcpSession | undefined;
    const send = (update: SessionUpdate) =>
      client.notify("session/update", { sessionId: ref.id, update });
    const say = (text: string) =>
      send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    const work = openCliAgent(
      contextFor(cwd),
      { ...selection, config },
      {
        session: "sessionId" in choice ? { sessionId: choice.sessionId } : choice,
        overrides,
        approvals: {
          ask: acpApprovalAsker({
            client,
            session: ref,
            cwd,
            timeoutMs,
            signal: () => session?.promptSignal,
          }),
        },
        notice: (message) => log(message),
        ui: acpExtensionUI({ client, session: ref, say }),
        toolOverrides: clientTools({
          client,
          session: ref,
          cwd,
          capabilities: clientCapabilities,
          showTerminal: (toolCallId, terminalId) =>
            send({
              sessionUpdate: "tool_call_update",
              toolCallId,
              status: "in_progress",
              content: [{ type: "terminal", terminalId }],
            }),
        }),
      },
    );
    opening.add(work);
    let agent: Awaited<typeof work>;
    try {
      agent = await work;
    } catch (error) {
      throw asRequestError(error, "sessionId" in choice ? choice.sessionId : undefined);
    } finally {
      opening.delete(work);
    }
    ref.id = agent.host.session.id;
    session = new AcpSession({
      cwd,
      agent,
      store,
      config,
      env: context.io.env,
      providerName: selection.provider.name,
      send,
      log,
    });
    sessions.set(ref.id, session);
    return session;
  };

  const announce = (session: AcpSession) => {
    // After the response: the editor learns of the session before its commands.
    setImmediate(() => {
      session.announceCommands().catch((error: unknown) => log(`commands: ${String(error)}`));
    });
  };

  const app = acpAgent({ name: "arbor" })
    .onRequest(methods.agent.initialize, async ({ params }): Promise<InitializeResponse> => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { list: {}, fork: {}, resume: {}, close: {} },
        },
        authMethods: await authMethods(context),
        agentInfo: { name: "arbor", title: "Arbor", version: options.version },
      };
    })
    .onRequest(methods.agent.authenticate, async ({ params }) => {
      const config = await loadConfig(context.paths.configFile).catch((error: unknown) => {
        throw RequestError.internalError(undefined, messageOf(error));
      });
      try {
        resolveProvider(config, context.io.env, { provider: params.methodId });
      } catch (error) {
        const hint = CliError.isInstance(error) && error.hint ? ` ${error.hint}` : "";
        throw RequestError.authRequired(undefined, `${messageOf(error)}${hint}`);
      }
      chosenProvider = params.methodId;
      return {};
    })
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      const session = await open(
        client,
        { create: { cwd: params.cwd } },
        params.cwd,
        params.mcpServers,
      );
      announce(session);
      return {
        sessionId: session.id,
        modes: session.modes(),
        configOptions: session.configOptions(),
      };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      const session =
        sessions.get(params.sessionId) ??
        (await open(client, { sessionId: params.sessionId }, params.cwd, params.mcpServers));
      await session.replay();
      announce(session);
      return { modes: session.modes(), configOptions: session.configOptions() };
    })
    .onRequest(methods.agent.session.resume, async ({ params, client }) => {
      const session =
        sessions.get(params.sessionId) ??
        (await open(client, { sessionId: params.sessionId }, params.cwd, params.mcpServers));
      announce(session);
      return { modes: session.modes(), configOptions: session.configOptions() };
    })
    .onRequest(methods.agent.session.fork, async ({ params, client }) => {
      const meta = params._meta as { entryId?: unknown } | null | undefined;
      const entryId = typeof meta?.entryId === "string" ? meta.entryId : undefined;
      const from = entryId ?? (await leafOf(store, sessions, params.sessionId));
      if (from === null)
        throw RequestError.invalidParams(
          undefined,
          "the session is empty; there is nothing to fork",
        );
      const forked = await store.fork(params.sessionId, from).catch((error: unknown) => {
        throw asRequestError(error, params.sessionId);
      });
      const id = forked.id;
      await forked.close();
      const session = await open(client, { sessionId: id }, params.cwd, params.mcpServers);
      announce(session);
      return {
        sessionId: session.id,
        modes: session.modes(),
        configOptions: session.configOptions(),
      };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const page = await store.list({
        ...(params.cwd ? { cwd: params.cwd } : {}),
        ...(params.cursor ? { cursor: params.cursor } : {}),
      });
      return {
        sessions: page.sessions.map((info) => ({
          sessionId: info.id,
          cwd: info.cwd,
          title: info.title ?? null,
          updatedAt: info.modified.toISOString(),
        })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      await sessionOf(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
      const configOptions = await sessionOf(params.sessionId).setConfigOption(
        params.configId,
        params.value,
      );
      return { configOptions };
    })
    .onRequest(methods.agent.session.prompt, async ({ params }) =>
      sessionOf(params.sessionId).prompt(params.prompt),
    )
    .onNotification(methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  return {
    app,
    closeAll: async () => {
      await Promise.allSettled([...opening]);
      const all = [...sessions.values()];
      sessions.clear();
      const results = await Promise.allSettled(all.map((session) => session.close()));
      for (const result of results) {
        if (result.status === "rejected") log(`closing a session: ${messageOf(result.reason)}`);
      }
    },
  };
}

/** The leaf of a session: of the open one, else read from its file. */
async function leafOf(
  store: CliSessionStore,
  sessions: ReadonlyMap<string, AcpSession>,
  sessionId: string,
): Promise<string | null> {
  const open = sessions.get(sessionId);
  if (open) return open.agent.host.session.getLeafId();
  const session = await store.open(sessionId, { readOnly: true }).catch((error: unknown) => {
    throw asRequestError(error, sessionId);
  });
  try {
    return session.getLeafId();
  } finally {
    await session.close();
  }
}

/** How the user's configured providers authenticate: one method per provider. */
async function authMethods(context: CliContext): Promise<AuthMethod[]> {
  const config = await loadConfig(context.paths.configFile).catch(() => undefined);
  const all = { ...providersFromEnv(context.io.env), ...config?.providers };
  return Object.entries(all).map(([name, provider]) => ({
    id: name,
    name: `${name} API key`,
    description: provider.apiKeyEnv
      ? `The key in the environment variable ${provider.apiKeyEnv}`
      : provider.apiKey !== undefined
        ? `The key in providers.${name} of the Arbor config`
        : `The provider's key from the environment or the Arbor config`,
  }));
}

/** An editor's MCP server as the config's MCP servers are written. */
function mcpConfigOf(server: McpServer): McpServerConfig {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    return {
      name: server.name,
      transport: {
        type: "http",
        url: server.url,
        headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
      },
    };
  }
  if ("command" in server) {
    return {
      name: server.name,
      transport: {
        type: "stdio",
        command: server.command,
        args: server.args,
        env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])),
      },
    };
  }
  throw RequestError.invalidParams(
    { name: server.name },
    `the MCP server ${server.name} uses a transport Arbor does not speak`,
  );
}

function asRequestError(error: unknown, sessionId: string | undefined): unknown {
  if (error instanceof RequestError) return error;
  const message = messageOf(error);
  if (sessionId !== undefined && /not found|no session|does not exist/i.test(message)) {
    return RequestError.sessionNotFound(sessionId);
  }
  const hint = CliError.isInstance(error) && error.hint ? ` ${error.hint}` : "";
  return RequestError.internalError(undefined, `${message}${hint}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
