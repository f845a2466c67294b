// A writer process for crash tests: appends messages to a session file as fast as it can,
// printing each id once its append has resolved (acknowledged). Killed from outside.
import { openSessionFile } from "../../dist/index.js";

const [path, durability] = process.argv.slice(2);
const session = await openSessionFile(path, { create: true, durability, cwd: "/crash" });
process.stdout.write("ready\n");
for (let i = 0; ; i++) {
  const id = await session.appendMessage({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [{ type: "text", text: `message ${i} ${"x".repeat(i % 500)}` }],
    timestamp: Date.now(),
  });
  process.stdout.write(`${id}\n`);
}
