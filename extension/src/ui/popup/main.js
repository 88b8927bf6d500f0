// The popup page's entry: the runtime BridgeService, mounted.
import { createRuntimeBridgeService } from "../../services/ui-service-runtime.js";
import { mountPopup } from "./popup.js";

mountPopup(document, createRuntimeBridgeService());
