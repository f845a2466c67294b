// A process for migration crash tests: opens (and so migrates) an old session file, then
// holds it until killed. With a stage argument it stops inside the migration instead, says
// `at <stage>` on stdout and waits to be killed there:
//   before-backup  the new file is written to its temporary name, the backup not yet
//   mid-backup     half of the backup is written
//   before-rename  the backup is complete, the temporary file not yet renamed over the old
//   after-rename   the new file is in place, the directory not yet synced
import fsp from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";

const [path, stage] = process.argv.slice(2);
// Stays alive until killed (a pending promise alone would let Node exit).
const holdUntilKilled = () => {
  setInterval(() => {}, 1 << 30);
  return new Promise(() => {});
};
const halt = () => {
  process.stdout.write(`at ${stage}\n`);
  return holdUntilKilled();
};
const { writeFile, rename } = fsp;
const isBackup = (file) => String(file).endsWith(".bak");
if (stage === "before-backup") {
  fsp.writeFile = (file, ...rest) => (isBackup(file) ? halt() : writeFile(file, ...rest));
} else if (stage === "mid-backup") {
  fsp.writeFile = async (file, data, ...rest) => {
    if (!isBackup(file)) return writeFile(file, data, ...rest);
    await writeFile(file, data.subarray(0, Math.floor(data.length / 2)), ...rest);
    return halt();
  };
} else if (stage === "before-rename") {
  fsp.rename = () => halt();
} else if (stage === "after-rename") {
  fsp.rename = async (...args) => {
    await rename(...args);
    return halt();
  };
}
// The library imports these functions by name; this makes those bindings see the stand-ins.
syncBuiltinESMExports();

const { openSessionFile } = await import("../../dist/index.js");
process.stdout.write("ready\n");
await openSessionFile(path);
process.stdout.write("migrated\n");
await holdUntilKilled();
