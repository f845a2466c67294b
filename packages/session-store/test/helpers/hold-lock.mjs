// Opens a session for writing and holds it until stdin closes: a second writer elsewhere.
import { openSessionFile } from "../../dist/index.js";

const session = await openSessionFile(process.argv[2], { create: true, cwd: "/lock" });
process.stdout.write("ready\n");
process.stdin.resume();
process.stdin.on("end", async () => {
  await session.close();
  process.exit(0);
});
