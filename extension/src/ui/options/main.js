// The options page's entry: the runtime UiService, mounted.
import { createRuntimeUiService } from "../../services/ui-service-runtime.js";
import { mountOptions } from "./options.js";

mountOptions(document, createRuntimeUiService(), { confirm: (q) => globalThis.confirm(q) }).catch((e) => {
  document.getElementById("msg").textContent = String(e && e.message ? e.message : e);
});
