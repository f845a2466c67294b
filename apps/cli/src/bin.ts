#!/usr/bin/env node
import { main } from "./main.js";

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
