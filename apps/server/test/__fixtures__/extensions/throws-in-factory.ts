/* A factory that fails: the server must refuse to start with it. */
export default function throwsInFactory(): void {
  throw new Error("no configuration for the gate");
}
