// The options page's entry: the runtime BridgeService, mounted.
import { createRuntimeBridgeService } from "../../services/ui-service-runtime.js";
import { mountOptions } from "./options.js";

mountOptions(document, createRuntimeBridgeService(), { confirm: (q) => globalThis.confirm(q) }).catch((e) => {
  document.getElementById("msg").textContent = String(e && e.message ? e.message : e);
});
