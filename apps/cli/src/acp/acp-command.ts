import { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk/unstable";
import type { CliContext } from "../cli-context.js";
import { cliVersion } from "../main.js";
import { createAcpAgent } from "./acp-agent.js";

/**
 * `arbor acp`: serves the Agent Client Protocol on stdin/stdout until the editor closes
 * stdin, then aborts what still runs (the partial answers are stored, marked aborted) and
 * closes every session. Only the protocol goes to stdout; the log goes to stderr.
 * @returns the exit code: 0 once the editor closed the connection
 */
export async function acpCommand(context: CliContext): Promise<number> {
  const { io } = context;
  const log = (message: string) => {
    context.printer.err(`arbor acp: ${message}\n`);
  };
  // Anything printed by an extension must not break the protocol on stdout.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  const timeout = Number(io.env.ARBOR_ACP_PERMISSION_TIMEOUT_MS);
  const agent = createAcpAgent({
    context,
    version: cliVersion(),
    log,
    ...(Number.isFinite(timeout) && timeout > 0 ? { permissionTimeoutMs: timeout } : {}),
  });
  // Written as fast as stdout takes it; only a full pipe makes the connection wait.
  const stdout = io.stdout as NodeJS.WritableStream;
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      stdout.write(chunk)
        ? undefined
        : new Promise<void>((resolve) => {
            stdout.once("drain", () => resolve());
          }),
  });
  const input = Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>;
  const connection = agent.app.connect(ndJsonStream(output, input));
  log(`serving the Agent Client Protocol on stdin/stdout (arbor ${cliVersion()})`);
  await connection.closed.catch((error: unknown) => log(`connection: ${String(error)}`));
  await agent.closeAll();
  return 0;
}
