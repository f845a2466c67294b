export { type Route, routeRequest } from "./router.js";
