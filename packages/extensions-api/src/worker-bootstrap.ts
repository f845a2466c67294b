/**
 * The script an extension's worker thread runs (as an `eval` worker, so it works the same
 * from sources and from the build). It imports the module with jiti, runs its factory
 * with an API of `on` only, then answers `call` messages with the handler's result.
 */
export const WORKER_BOOTSTRAP = `
const { parentPort, workerData } = require("node:worker_threads");
const message = (error) => (error && error.message) || String(error);
(async () => {
  const handlers = new Map();
  const unsupported = (name) => () => {
    const error = new Error(name + " is not available to an extension running in a worker; only on() is");
    error.code = "unsupported_in_worker";
    throw error;
  };
  const api = {
    extensionName: workerData.name,
    cwd: workerData.cwd,
    get session() { return unsupported("session")(); },
    on(event, handler) {
      if (typeof handler !== "function") throw new Error("the handler for " + event + " is not a function");
      const list = handlers.get(event) || [];
      list.push(handler);
      handlers.set(event, list);
      parentPort.postMessage({ type: "on", event, index: list.length - 1 });
    },
  };
  for (const name of ["sendMessage", "sendUserMessage", "appendEntry", "registerTool", "registerCommand", "registerMessageRenderer", "requireFinalMeta", "setLabel", "setTitle", "exec"])
    api[name] = unsupported(name);
  // A worker has no UI and no session actions: requests get no answer, reads answer
  // conservatively, actions are refused, as the context documents.
  const noAnswer = async () => undefined;
  const ui = { select: noAnswer, confirm: noAnswer, input: noAnswer, custom: noAnswer, notify() {} };
  const context = () => ({
    extensionName: workerData.name,
    cwd: workerData.cwd,
    signal: undefined,
    hasUI: false,
    ui,
    model: undefined,
    models: [],
    getContextUsage: () => undefined,
    isIdle: () => true,
    abort() {},
    compact: async () => unsupported("compact")(),
  });
  parentPort.on("message", async (call) => {
    try {
      const handler = handlers.get(call.event)[call.index];
      const value = await handler(call.payload, context());
      parentPort.postMessage({ type: "result", id: call.id, value });
    } catch (error) {
      parentPort.postMessage({ type: "result", id: call.id, error: message(error) });
    }
  });
  try {
    const { createJiti } = await import(workerData.jitiUrl);
    const jiti = createJiti(workerData.path, { moduleCache: false, fsCache: false, interopDefault: false });
    const module = await jiti.import(workerData.path);
    const factory = module && module.default;
    if (typeof factory !== "function") throw new Error("the default export is not a function (arbor: ExtensionAPI) => void");
    await factory(api);
    parentPort.postMessage({ type: "ready" });
  } catch (error) {
    parentPort.postMessage({ type: "load_error", error: message(error) });
  }
})();
`;
