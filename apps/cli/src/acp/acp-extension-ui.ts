import type { AgentContext, PermissionOption } from "@agentclientprotocol/sdk/unstable";
import type { ExtensionUIProvider, UIRequest } from "@arbor/orchestration";

/** What {@link acpExtensionUI} needs. */
export interface AcpExtensionUIOptions {
  client: AgentContext;
  session: { id: string };
  /** Shows a message in the editor's conversation. */
  say: (text: string) => Promise<void>;
}

/**
 * Extensions' `ctx.ui` in an editor: `confirm` and `select` become permission requests
 * (the options are the answers), notifications become messages in the conversation. An
 * `input` or a custom component the editor cannot show is said so in the conversation
 * before it resolves to no answer, never silently.
 */
export function acpExtensionUI(options: AcpExtensionUIOptions): ExtensionUIProvider {
  return {
    interactive: true,
    async request(request: UIRequest, signal: AbortSignal): Promise<unknown> {
      if (request.kind === "custom" || request.kind === "input") {
        const title = request.kind === "input" ? ` "${request.title}"` : "";
        await options.say(
          `[${request.extensionName}] asked for ${request.kind === "input" ? "text" : "its own view"}${title}, which the editor cannot show over ACP; it got no answer.\n`,
        );
        return undefined;
      }
      const choices: PermissionOption[] =
        request.kind === "confirm"
          ? [
              { optionId: "yes", name: "Yes", kind: "allow_once" },
              { optionId: "no", name: "No", kind: "reject_once" },
            ]
          : request.options.map((option, index) => ({
              optionId: String(index),
              name: option,
              kind: "allow_once" as const,
            }));
      const detail = request.kind === "confirm" && request.message ? `: ${request.message}` : "";
      try {
        const response = await options.client.request(
          "session/request_permission",
          {
            sessionId: options.session.id,
            toolCall: {
              toolCallId: `ui-${request.id}`,
              title: `[${request.extensionName}] ${request.title}${detail}`,
              kind: "other",
              status: "pending",
            },
            options: choices,
          },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        );
        if (response.outcome.outcome !== "selected") return undefined;
        const picked = response.outcome.optionId;
        if (request.kind === "confirm") return picked === "yes";
        return request.options[Number(picked)];
      } catch {
        return undefined;
      }
    },
    notify(notification) {
      void options
        .say(`[${notification.extensionName}] ${notification.message}\n`)
        .catch(() => undefined);
    },
  };
}
