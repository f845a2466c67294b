import { spawn } from "node:child_process";
import { harnessFixturePath } from "../agent-scenario/harness-fixture.js";

/** What the killed run left: the root session's id. */
export interface CrashedRun {
  rootSessionId: string;
}

/** The most a crash run may take before the harness gives up on it. */
const CRASH_DEADLINE_MS = 20_000;

/**
 * Runs an orchestration in a separate Node process (`fixtures/orchestration/crash-worker.mjs`)
 * on the file store at `sessionsRoot`, and kills it with SIGKILL as soon as it reports that
 * the child with agent path `killOnChildStart` started and a model call followed (and
 * `killAfterMs` more passed).
 * @throws Error when the process ends (or 20 s pass) before that child started
 */
export function crashRun(input: {
  agentFile: string;
  sessionsRoot: string;
  prompt: string;
  targets: Record<string, unknown[]>;
  killOnChildStart: string;
  killAfterMs?: number;
}): Promise<CrashedRun> {
  const worker = harnessFixturePath("orchestration", "crash-worker.mjs");
  const config = JSON.stringify({
    agentFile: input.agentFile,
    sessionsRoot: input.sessionsRoot,
    prompt: input.prompt,
    targets: input.targets,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, config], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let rootSessionId: string | undefined;
    const timer = setTimeout(() => child.kill("SIGKILL"), CRASH_DEADLINE_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines = stdout.split("\n");
      // Killed at the first model call after the child started: its prompt is stored, it streams.
      const started = lines.findIndex((line) =>
        line.startsWith(`STARTED ${input.killOnChildStart} `),
      );
      if (started < 0 || rootSessionId !== undefined) return;
      if (!lines.slice(started + 1).some((line) => line.startsWith("STREAMING "))) return;
      rootSessionId = lines[started]?.split(" ")[2];
      setTimeout(() => child.kill("SIGKILL"), input.killAfterMs ?? 0);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("exit", (_code, signal) => {
      clearTimeout(timer);
      if (rootSessionId !== undefined && signal === "SIGKILL") resolve({ rootSessionId });
      else
        reject(
          new Error(
            `the crash run ended (${signal ?? "exit"}) before ${input.killOnChildStart} started:\n${stdout}${stderr}`,
          ),
        );
    });
  });
}
