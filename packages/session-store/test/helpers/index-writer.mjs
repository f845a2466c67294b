// A writer process for the listing-index tests: creates a session in a directory, appends
// messages while its index record is updated every few milliseconds (racing the other
// writers' updates of the same index), names it and closes. Prints the file's path.
import { createSession } from "../../dist/index.js";

const [dir, count, name] = process.argv.slice(2);
const session = await createSession({ dir, cwd: "/race", listingIndexDelayMs: 2 });
for (let i = 0; i < Number(count); i++) {
  await session.appendMessage({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [{ type: "text", text: `${name} message ${i}` }],
    timestamp: Date.now(),
  });
  if (i % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 3));
}
await session.setTitle(name);
await session.close();
process.stdout.write(`${session.location}\n`);
