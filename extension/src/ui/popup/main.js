// The popup page's entry: the runtime UiService, mounted.
import { createRuntimeUiService } from "../../services/ui-service-runtime.js";
import { mountPopup } from "./popup.js";

mountPopup(document, createRuntimeUiService());
