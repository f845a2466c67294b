import type { AgentRun } from "@arbor/orchestration";
import { guardExtensionFailures, recordInterruptedChildren } from "@arbor/orchestration";
import { listSessions } from "@arbor/session-store";
import { render } from "ink";
import { createModel } from "../agent/model-factory.js";
import {
  interactiveAgentFile,
  rememberAgentFile,
  withoutChildSessions,
} from "../agent-tree/index.js";
import { type CliContext, selectModel } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { configuredModelList, resolveProvider } from "../config/index.js";
import { CliSessionStore, openCliAgent } from "../host/index.js";
import { redactSecrets } from "../output/index.js";
import { sessionDirFor } from "../paths.js";
import { chooseSession } from "../session-locator.js";
import {
  onTerminationSignal,
  signalExitCode,
  type TerminationSignal,
  type UnansweredPrompt,
  unansweredPrompt,
} from "../signals/index.js";
import { askYesNo } from "../trust/index.js";
import { ApprovalPrompter } from "./approval-prompter.js";
import { ChatApp } from "./chat-app.js";
import { ChatController } from "./chat-controller.js";
import { TerminalExtensionUI } from "./extension-ui/index.js";
import { pickSession } from "./pick-session.js";

/**
 * Starts the interactive app in the terminal and resolves with the exit code once the user
 * quits. Configuration problems are reported before the screen is taken over.
 */
export async function startInteractive(context: CliContext): Promise<number> {
  const { io, args, paths } = context;
  // Configuration first: with no provider, saying how to configure one matters most.
  const selection = await selectModel(context);
  if (io.stdin.isTTY !== true) {
    throw new CliError("the interactive app needs a terminal.", {
      hint: 'For scripts and pipes use: arbor run "prompt" (or pipe the prompt to arbor run).',
      exitCode: 2,
    });
  }

  const modelFor = (spec: string) => {
    const slash = spec.indexOf("/");
    // A bare word is a model id of the current provider, as /model always read it.
    const choice =
      slash > 0
        ? { provider: spec.slice(0, slash), model: spec.slice(slash + 1) }
        : { provider: selection.provider.name, model: spec };
    try {
      return createModel(resolveProvider(selection.config, io.env, choice));
    } catch (error) {
      if (CliError.isInstance(error))
        throw new Error(`${error.message} ${error.hint ?? ""}`.trim());
      throw error;
    }
  };
  let session = await chooseSession(paths, io.cwd, args);
  if (args.resume && args.session === undefined) {
    const picked = await pickSession(paths, io);
    if (picked === undefined) {
      io.stdout.write("No session picked.\n");
      return 0;
    }
    session = { sessionId: picked };
  }
  // One store for the app's session and the child sessions an agent file's runs create.
  const store = new CliSessionStore({
    sessionsRoot: paths.sessionsRoot,
    sessionDirFor: (cwd) => sessionDirFor(paths, cwd),
  });
  // An agent file (--agent, or the one the resumed session ran on) loads whole before the
  // screen is taken over: a broken one stops here with the file, the key and the reason.
  const agentFile = await interactiveAgentFile(io.cwd, args.agent, session, store);
  const extensionErrors: string[] = [];
  // Until the app is up, setup notices and extension failures are collected; then they
  // become notices.
  let reportExtensionError = (message: string) => {
    extensionErrors.push(message);
  };
  const unguard = guardExtensionFailures(process);
  const approvals = new ApprovalPrompter();
  const extensionUI = new TerminalExtensionUI();
  // Runs a session_start handler starts begin while the host opens, before the transcript exists.
  let startupRuns: AgentRun[] | undefined = [];
  // The one CLI setup, as print mode and `arbor run` get it; the trust question is asked
  // before the screen is taken over, approvals and extension dialogs on it.
  const agent = await openCliAgent(context, selection, {
    session,
    store,
    ...(agentFile ? { overrides: { agentTree: agentFile.tree } } : {}),
    askTrust: (question) => askYesNo(io.stdin, io.stdout, question),
    approvals: { ask: approvals.ask },
    notice: (message) =>
      reportExtensionError(message.startsWith("skipped ") ? `S${message.slice(1)}` : message),
    ui: extensionUI,
    onRun: (run) => startupRuns?.push(run),
    sessionThinking: true,
  }).catch((error: unknown) => {
    unguard();
    throw error;
  });
  const { host, rules, projectContext } = agent;
  // Asked before anything is stored: a new session is not one resumed.
  const resumed = host.session.getEntries().length > 0;
  // Child runs the session recorded as running had their process killed: recorded as
  // interrupted (in their own sessions too), so /tree does not show them running forever.
  const interrupted = resumed
    ? await recordInterruptedChildren(host.session, { store }).catch(() => [])
    : [];
  // The agent file is remembered in the session, so -c / -r / -s resume on it.
  if (agentFile) await rememberAgentFile(host.session, agentFile.file);
  const controller = new ChatController({
    ...(agentFile ? { agentFile: agentFile.file } : {}),
    openSession: (id) => store.open(id, { readOnly: true }),
    host,
    rules,
    projectContext,
    systemPrompt: agent.systemPrompt,
    selectModel: modelFor,
    listModels: () => configuredModelList(selection.config, io.env),
    mcpServers: agent.mcpServers,
    redact: (text) => redactSecrets(text, context.secrets.values()),
  });
  for (const run of startupRuns) void controller.follow(run);
  startupRuns = undefined;
  for (const message of extensionErrors.splice(0)) controller.notify(message, "warning");
  reportExtensionError = (message) => controller.notify(message, "warning");
  if (resumed) controller.notify(`Resumed ${host.session.location}`);
  if (interrupted.length > 0) {
    controller.notify(
      `${interrupted.length} child run(s) of an agent file stopped with arbor; recorded as interrupted.`,
      "warning",
    );
  }
  if (agentFile) {
    const from = agentFile.remembered ? " (the agent file this session ran on)" : "";
    controller.notify(`Each prompt runs the agent file ${agentFile.file}${from}.`);
  }
  // Bracketed paste: the terminal marks pasted text, so its line breaks do not send it.
  io.stdout.write("\u001b[?2004h");
  const app = render(
    <ChatApp
      controller={controller}
      cwd={io.cwd}
      listSessions={async () =>
        withoutChildSessions(await listSessions(sessionDirFor(paths, io.cwd)))
      }
      approvals={approvals}
      extensionUI={extensionUI}
      toolUpdates={(listener) => host.onToolUpdate(listener)}
    />,
    { exitOnCtrlC: false },
  );
  // SIGTERM or SIGHUP (the terminal closed): the answer so far is stored as aborted, then
  // the app closes the session, which releases its lock.
  let stoppedBy: TerminationSignal | undefined;
  const stopOnSignal = onTerminationSignal((signal) => {
    stoppedBy = signal;
    controller.abort();
    void controller.waitForIdle().finally(() => app.unmount());
  });
  const unanswered = resumed ? unansweredPrompt(host.session) : undefined;
  if (unanswered) void offerRetry(extensionUI, controller, unanswered);
  try {
    await app.waitUntilExit();
  } finally {
    stopOnSignal();
    io.stdout.write("\u001b[?2004l");
    approvals.cancel();
    extensionUI.cancelAll();
    await controller.close();
    await agent.close();
    unguard();
  }
  io.stdout.write(`Session saved: ${controller.currentSession.location}\n`);
  return stoppedBy === undefined ? 0 : signalExitCode(stoppedBy);
}

/**
 * Asks whether to send again the message a killed app left without an answer; yes sends
 * it as a sibling of the old one (no second copy stacked after it).
 */
async function offerRetry(
  ui: TerminalExtensionUI,
  controller: ChatController,
  prompt: UnansweredPrompt,
): Promise<void> {
  const preview = prompt.text.length > 60 ? `${prompt.text.slice(0, 60)}…` : prompt.text;
  const yes = await ui.request(
    {
      kind: "confirm",
      id: "arbor-retry-unanswered",
      extensionName: "arbor",
      timeoutMs: 0,
      title: "Retry the last message?",
      message: `"${preview}" got no answer (arbor was stopped). y sends it again, n leaves it.`,
    },
    new AbortController().signal,
  );
  if (yes === true) await controller.retry(prompt);
}
