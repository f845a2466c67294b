/** One route: the agent to hand a request to when any of its patterns matches. */
export interface Route {
  agent: string;
  patterns: RegExp[];
}

/**
 * Picks the agent for a request: the first route, in order, with a pattern that matches
 * the text, or the fallback agent when none does.
 * @returns the chosen agent's name
 */
export function routeRequest(text: string, routes: readonly Route[], fallback: string): string {
  for (const route of routes) {
    if (route.patterns.some((pattern) => pattern.test(text))) return route.agent;
  }
  return fallback;
}
