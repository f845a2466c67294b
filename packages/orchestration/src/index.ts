export * from "./definition/index.js";
export * from "./errors/index.js";
export * from "./host/index.js";
export * from "./models/index.js";
export * from "./orchestration/index.js";
export * from "./reexports.js";
