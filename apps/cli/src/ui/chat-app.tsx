import type { SessionInfo } from "@arbor/session-store";
import { Box, Text, useApp, useInput } from "ink";
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { layoutTree } from "../tree-lines.js";
import { ApprovalPrompt } from "./approval-prompt.js";
import type { ApprovalPrompter } from "./approval-prompter.js";
import type { ChatController } from "./chat-controller.js";
import { type ChildFrame, ChildSessionView } from "./child-session-view.js";
import {
  ExtensionUILayer,
  RenderedLinesContext,
  renderedLinesLookup,
  type TerminalExtensionUI,
  ToolProgress,
  type ToolUpdateSource,
} from "./extension-ui/index.js";
import { Footer } from "./footer.js";
import { type CompletionSources, workspaceDirLister } from "./prompt-completion.js";
import { PromptInput, type PromptInputControl } from "./prompt-input.js";
import { SessionPicker } from "./session-picker.js";
import { BUILTIN_COMMANDS, runSlashCommand } from "./slash-commands.js";
import { Spinner } from "./spinner.js";
import { TranscriptView } from "./transcript-view.js";
import { TreeView } from "./tree-view.js";

/** How long a first Ctrl+C waits for the second one. */
export const QUIT_WINDOW_MS = 2000;

/** Props of {@link ChatApp}. */
export interface ChatAppProps {
  controller: ChatController;
  cwd: string;
  /** The sessions `/sessions` offers. */
  listSessions: () => Promise<SessionInfo[]>;
  /** Where the approval gate's questions show; without it nothing is asked here. */
  approvals?: ApprovalPrompter;
  /** Where extensions' dialogs and notifications show (`ctx.ui`). */
  extensionUI?: TerminalExtensionUI;
  /** Extension tools' progress (`ctx.onUpdate`), shown while an answer runs. */
  toolUpdates?: ToolUpdateSource;
}

const NO_APPROVALS = {
  subscribe: () => () => undefined,
  getState: () => undefined,
};

type View =
  | { name: "chat" }
  | { name: "tree" }
  | { name: "sessions"; sessions: SessionInfo[] }
  /** Child sessions opened from `/tree`, outermost first; Esc goes back one. */
  | { name: "child"; frames: ChildFrame[] };

/** The interactive app: transcript, spinner, input, footer, and the /tree and /sessions views. */
export function ChatApp({
  controller,
  cwd,
  listSessions,
  approvals,
  extensionUI,
  toolUpdates,
}: ChatAppProps) {
  const state = useSyncExternalStore(controller.subscribe, controller.getState);
  const approvalStore = approvals ?? NO_APPROVALS;
  const pendingApproval = useSyncExternalStore(approvalStore.subscribe, approvalStore.getState);
  const dialogStore = extensionUI ?? NO_APPROVALS;
  const dialogOpen =
    useSyncExternalStore(dialogStore.subscribe, () => extensionUI?.getState().pending) !==
    undefined;
  const { exit } = useApp();
  const renderedLines = useMemo(
    () =>
      renderedLinesLookup(
        () => controller.currentSession,
        (message, options) => controller.renderMessage(message, options),
        80,
      ),
    [controller],
  );
  const [view, setView] = useState<View>({ name: "chat" });
  const [history, setHistory] = useState<string[]>([]);
  const [prefill, setPrefill] = useState<{ text: string; key: number } | undefined>(undefined);
  const [quitArmed, setQuitArmed] = useState(false);
  const quitTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The /tree line a child session was opened from, selected again on the way back.
  const [treeSelection, setTreeSelection] = useState<string | undefined>(undefined);
  const [missingChildren, setMissingChildren] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => () => clearTimeout(quitTimer.current), []);
  const input = useRef<PromptInputControl | undefined>(undefined);
  const completions = useMemo<CompletionSources>(
    () => ({
      get commands() {
        return [
          ...BUILTIN_COMMANDS.map((command) => command.name),
          ...controller.extensionCommands().map((command) => command.name),
        ];
      },
      listDir: workspaceDirLister(cwd),
    }),
    [controller, cwd],
  );

  // Read through refs and the controller, not render-time values: keys can arrive faster
  // than React re-renders.
  const quitArmedAt = useRef(0);
  const viewRef = useRef(view);
  viewRef.current = view;
  useInput((typed, key) => {
    if (key.ctrl && typed === "c") {
      // A first Ctrl+C clears what is typed; on an empty input it arms quitting.
      if (viewRef.current.name === "chat" && input.current?.hasText()) {
        input.current.clear();
        return;
      }
      if (Date.now() - quitArmedAt.current < QUIT_WINDOW_MS) {
        exit();
        return;
      }
      quitArmedAt.current = Date.now();
      setQuitArmed(true);
      clearTimeout(quitTimer.current);
      quitTimer.current = setTimeout(() => setQuitArmed(false), QUIT_WINDOW_MS);
      return;
    }
    if (
      key.escape &&
      viewRef.current.name === "chat" &&
      controller.getState().running &&
      approvalStore.getState() === undefined &&
      extensionUI?.getState().pending === undefined
    ) {
      controller.abort();
    }
  });

  const openTree = useCallback(() => {
    setTreeSelection(undefined);
    setView({ name: "tree" });
    // Child sessions whose file is gone are marked in the tree rather than failing when opened.
    const ids = layoutTree(controller.currentSession).flatMap((line) =>
      line.child ? [line.child.sessionId] : [],
    );
    if (ids.length > 0) void controller.missingChildSessions(ids).then(setMissingChildren);
  }, [controller]);

  const submit = useCallback(
    (text: string) => {
      setHistory((current) => [...current, text]);
      if (text.startsWith("/")) {
        void runSlashCommand(controller, text, cwd).then(async (outcome) => {
          if (outcome.quit) exit();
          else if (outcome.view === "tree") openTree();
          else if (outcome.view === "sessions")
            setView({ name: "sessions", sessions: await listSessions() });
        });
        return;
      }
      const now = controller.getState();
      if (now.running || now.busy) {
        controller.notify(
          "An answer is still running; wait for it or press Esc to abort it.",
          "warning",
        );
        return;
      }
      void controller.send(text);
    },
    [controller, cwd, exit, listSessions, openTree],
  );

  // Reads a child session into the frame opened for it (the newest frame of that id).
  const readChild = useCallback(
    (sessionId: string) => {
      void controller.readChildSession(sessionId).then((snapshot) =>
        setView((current) => {
          if (current.name !== "child") return current;
          const index = current.frames.findLastIndex((frame) => frame.sessionId === sessionId);
          if (index < 0) return current;
          const frames = current.frames.map((frame, at) =>
            at === index ? { ...frame, snapshot } : frame,
          );
          return { name: "child", frames };
        }),
      );
    },
    [controller],
  );

  const openChild = useCallback(
    (sessionId: string, entryId?: string) => {
      if (entryId !== undefined) setTreeSelection(entryId);
      setView((current) => ({
        name: "child",
        frames: [
          ...(current.name === "child" ? current.frames : []),
          { sessionId, snapshot: undefined },
        ],
      }));
      readChild(sessionId);
    },
    [readChild],
  );

  const closeChild = useCallback(() => {
    setView((current) =>
      current.name === "child" && current.frames.length > 1
        ? { name: "child", frames: current.frames.slice(0, -1) }
        : { name: "tree" },
    );
  }, []);

  const chooseEntry = useCallback(
    (entryId: string, summarize: boolean) => {
      setView({ name: "chat" });
      void controller.navigate(entryId, summarize).then((text) => {
        if (text !== undefined) setPrefill({ text, key: Date.now() });
      });
    },
    [controller],
  );

  const chooseSession = useCallback(
    (path: string) => {
      setView({ name: "chat" });
      if (path === controller.currentSession.location) return;
      void controller
        .switchSession(path)
        .catch((error: unknown) =>
          controller.notify(
            `Could not open ${path}: ${error instanceof Error ? error.message : String(error)}`,
            "error",
          ),
        );
    },
    [controller],
  );

  const labelEntry = useCallback(
    (entryId: string, label: string) => {
      void controller
        .setLabel(entryId, label)
        .catch((error: unknown) =>
          controller.notify(
            `Could not label ${entryId}: ${error instanceof Error ? error.message : String(error)}`,
            "error",
          ),
        );
    },
    [controller],
  );

  const last = state.items.at(-1);
  const waiting =
    state.running &&
    !(last?.kind === "assistant" && (last.text || last.thinking || last.tools.length > 0));
  return (
    <RenderedLinesContext.Provider value={renderedLines}>
      <Box flexDirection="column">
        <TranscriptView items={state.items} />
        {view.name === "tree" ? (
          <TreeView
            lines={layoutTree(controller.currentSession)}
            onSelect={chooseEntry}
            onLabel={labelEntry}
            onCancel={() => setView({ name: "chat" })}
            onOpenChild={openChild}
            missingChildren={missingChildren}
            initialSelectedId={treeSelection}
            onRewind={(entryId, to) => {
              setView({ name: "chat" });
              void controller.rewind(entryId, to);
            }}
          />
        ) : null}
        {view.name === "child" ? (
          <ChildSessionView
            frames={view.frames}
            onOpen={(sessionId) => openChild(sessionId)}
            onBack={closeChild}
          />
        ) : null}
        {view.name === "sessions" ? (
          <SessionPicker
            sessions={view.sessions}
            currentPath={state.sessionFile}
            onSelect={chooseSession}
            onCancel={() => setView({ name: "chat" })}
          />
        ) : null}
        <Box marginTop={1} flexDirection="column">
          {pendingApproval ? <ApprovalPrompt pending={pendingApproval} /> : null}
          {extensionUI ? <ExtensionUILayer ui={extensionUI} /> : null}
          {waiting && !pendingApproval ? (
            <Spinner label="waiting for the model · Esc aborts" />
          ) : null}
          {state.busy ? <Spinner label={state.busy} /> : null}
          {toolUpdates ? <ToolProgress source={toolUpdates} running={state.running} /> : null}
          <PromptInput
            key={prefill?.key ?? 0}
            onSubmit={submit}
            history={history}
            active={view.name === "chat" && pendingApproval === undefined && !dialogOpen}
            completions={completions}
            control={input}
            {...(prefill ? { initialValue: prefill.text } : {})}
            placeholder={
              state.running || state.busy
                ? "answering… Esc aborts"
                : "Ask anything · /help for commands"
            }
          />
          {quitArmed ? <Text color="yellow">Press Ctrl+C again to quit.</Text> : null}
          <Footer state={state} />
        </Box>
      </Box>
    </RenderedLinesContext.Provider>
  );
}
