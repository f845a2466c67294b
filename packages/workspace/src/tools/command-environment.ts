/** Names of variables that hold credentials; commands the model runs never see them. */
const SECRET_NAME = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

/**
 * The environment of the commands the model runs: the app's own, without variables whose
 * names say they hold credentials (`OPENAI_API_KEY`, `GITHUB_TOKEN`, …), so a command
 * cannot print a key into the session.
 */
export function commandEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !SECRET_NAME.test(name)) clean[name] = value;
  }
  clean.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return clean;
}
