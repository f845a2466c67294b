export { a2aRoutes, agentCardRoutes } from "./a2a-routes.js";
export { agentCardOf } from "./agent-card.js";
export { RunTaskHandler } from "./run-task-handler.js";
