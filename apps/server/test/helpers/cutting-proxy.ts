import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

/** One connection a {@link CuttingProxy} carried. */
export interface ProxiedConnection {
  /** The request bytes the client sent, as text. */
  request: string;
  /** The bytes of the answer passed on to the client. */
  bytes: number;
  /** Whether the proxy cut this connection. */
  cut: boolean;
}

/** A loopback TCP proxy in front of a server that cuts chosen connections mid-answer. */
export interface CuttingProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  connections: ProxiedConnection[];
  /** Resolves once `count` connections were cut. */
  cuts(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` (`http://host:port`): connection `i` gets the first
 * `cutAfter[i]` bytes of the server's answer, then both its sockets are destroyed (a reset, as
 * a dropped network gives); connections past the list, or given `undefined`, pass whole.
 */
export async function startCuttingProxy(
  target: string,
  cutAfter: Array<number | undefined>,
): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const connections: ProxiedConnection[] = [];
  const sockets = new Set<Socket>();
  let cutCount = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server: Server = createServer((client) => {
    const limit = cutAfter[connections.length];
    const record: ProxiedConnection = { request: "", bytes: 0, cut: false };
    connections.push(record);
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      record.request += chunk.toString("latin1");
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (record.cut) return;
      const room = limit === undefined ? chunk.length : limit - record.bytes;
      const part = room < chunk.length ? chunk.subarray(0, room) : chunk;
      record.bytes += part.length;
      if (part.length > 0) client.write(part);
      if (limit !== undefined && record.bytes >= limit) {
        record.cut = true;
        // resetAndDestroy: the client sees the connection reset, not a clean end.
        client.resetAndDestroy();
        upstream.destroy();
        cutCount += 1;
        for (const waiter of waiters.splice(0)) {
          if (cutCount >= waiter.count) waiter.resolve();
          else waiters.push(waiter);
        }
      }
    });
    client.on("close", drop).on("error", drop);
    upstream.on("close", drop).on("error", drop);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    connections,
    cuts: (count) =>
      cutCount >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
