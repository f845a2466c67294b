import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** How one request to a {@link ScriptedSseServer} is answered. */
export type ScriptedAnswer = (req: IncomingMessage, res: ServerResponse) => void;

/** An HTTP server on loopback answering request `i` with `answers[i]` (the last one after). */
export interface ScriptedSseServer {
  url: string;
  /** The `Last-Event-ID` header of each request (undefined when absent). */
  lastEventIds: Array<string | undefined>;
  /** Resolves when request `i`'s socket closed. */
  closed(i: number): Promise<void>;
  close(): Promise<void>;
}

/** An answer with `status`, a content type and a body written at once. */
export function answerWith(status: number, type: string, body: string): ScriptedAnswer {
  return (_req, res) => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
}

/** Starts a scripted server for hostile-input tests of the client. */
export async function startScriptedSseServer(
  answers: ScriptedAnswer[],
): Promise<ScriptedSseServer> {
  const lastEventIds: Array<string | undefined> = [];
  const closings: Array<Promise<void>> = [];
  const server = createServer((req, res) => {
    const i = lastEventIds.length;
    const header = req.headers["last-event-id"];
    lastEventIds.push(typeof header === "string" ? header : undefined);
    closings[i] = new Promise((resolve) => req.socket.on("close", () => resolve()));
    (answers[i] ?? (answers.at(-1) as ScriptedAnswer))(req, res);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    lastEventIds,
    closed: (i) => closings[i] ?? Promise.reject(new Error(`no request ${i}`)),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
