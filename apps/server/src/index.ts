export { createApp, type HealthReport } from "./app.js";
