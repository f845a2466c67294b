#!/usr/bin/env node
import { main } from "./main.js";
import { endQuietlyOnBrokenPipe } from "./output/broken-pipe.js";

// `arbor … | head` closes the pipe early: end quietly, not with an EPIPE stack trace.
endQuietlyOnBrokenPipe(
  [process.stdout, process.stderr],
  (code) => process.exit(code),
  (message) => {
    try {
      process.stderr.write(message);
    } catch {
      // stderr is gone too
    }
  },
);

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
};

const code = await main(process.argv.slice(2), io, async (context) => {
  const { startInteractive } = await import("./ui/start-interactive.js");
  return startInteractive(context);
});
process.exitCode = code;
