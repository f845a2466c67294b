export { FakeExtensionHost, type HostCall } from "./fake-extension-host.js";
