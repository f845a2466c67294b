import type { AddressInfo } from "node:net";
import type { ScriptedResponseInput } from "@arbor/providers/test";
import { serve } from "@hono/node-server";
import { makeTestApp, type TestApp } from "../helpers/test-app.js";

/** A test app (see {@link makeTestApp}) listening on loopback, for the protocols' own clients. */
export interface HeadendServer extends TestApp {
  /** `http://127.0.0.1:<port>` */
  origin: string;
}

/** The last user text of a provider request (the fake model's echo reads it). */
export function lastUserText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
  const user = messages.filter((m) => m.role === "user").at(-1);
  if (!user) return "";
  if (typeof user.content === "string") return user.content;
  return (user.content as Array<{ text?: string }>).map((p) => p.text ?? "").join("");
}

/**
 * Starts a test app on a socket. The fake model answers `echo: <last user text> (<n>
 * messages)` unless `fallback` says otherwise, so a test sees what context the agent got.
 */
export async function startHeadendServer(
  options: {
    fallback?: (body: Record<string, unknown>) => ScriptedResponseInput;
    responses?: ScriptedResponseInput[];
    limits?: Parameters<typeof makeTestApp>[0] extends infer O
      ? O extends { limits?: infer L }
        ? L
        : never
      : never;
  } = {},
): Promise<HeadendServer> {
  const t = await makeTestApp({
    fallback:
      options.fallback ??
      ((body) => ({
        blocks: [
          {
            type: "text",
            text: `echo: ${lastUserText(body)} (${(body.messages as unknown[]).length} messages)`,
          },
        ],
        chunkSize: 4,
      })),
    ...(options.responses ? { responses: options.responses } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const listening = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, () =>
      resolve(listening),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    ...t,
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}
