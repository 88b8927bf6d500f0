import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const path = (p) => fileURLToPath(new URL(p, import.meta.url));
const manifest = JSON.parse(readFileSync(path("../manifest.json"), "utf8"));

// webRequest (observing only: no blocking, no headers asked for) gives the
// trace its failed requests at a fifth of the events Network.enable would
// send through chrome.debugger (docs/extension.md §Trace).
// scripting registers the recorder's content script while a recording
// runs (recorder/early.js); with <all_urls> it adds no warning of its own.
test("permissions are exactly debugger, tabs, storage, alarms, idle, downloads, webRequest, webNavigation, scripting", () => {
  assert.deepEqual([...manifest.permissions].sort(), ["alarms", "debugger", "downloads", "idle", "scripting", "storage", "tabs", "webNavigation", "webRequest"]);
  assert.equal(manifest.optional_permissions, undefined);
});

test("host permissions are <all_urls> only", () => {
  assert.deepEqual(manifest.host_permissions, ["<all_urls>"]);
});

test("the key is pinned so the extension ID is stable", () => {
  assert.equal(typeof manifest.key, "string");
  assert.ok(manifest.key.length > 300);
});

test("no content scripts and no web accessible resources", () => {
  assert.equal(manifest.content_scripts, undefined);
  assert.equal(manifest.web_accessible_resources, undefined);
});

test("the CSP, if any, never allows eval", () => {
  const csp = manifest.content_security_policy;
  const text = typeof csp === "string" ? csp : JSON.stringify(csp || {});
  assert.doesNotMatch(text, /unsafe-eval|wasm-unsafe-eval/);
});

test("MV3 module worker, options page and popup point at real files", () => {
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.background.type, "module");
  assert.ok(existsSync(path("../" + manifest.background.service_worker)));
  assert.equal(manifest.options_ui.page, "src/ui/options/options.html");
  assert.ok(existsSync(path("../" + manifest.options_ui.page)));
  assert.equal(manifest.action.default_popup, "src/ui/popup/popup.html");
  assert.ok(existsSync(path("../" + manifest.action.default_popup)));
});

test("worker sources never use eval or new Function", () => {
  for (const f of ["generated/worker.js", "background.js", "transport/validator.js", "transport/ws-client.js", "routing/action-dispatcher.js", "sessions/session-manager.js", "windows/window-manager.js", "transport/pairing.js", "core/chrome-api.js", "sessions/idle-guard.js", "services/badge.js", "services/ui-service.js", "services/ui-service-local.js", "services/ui-service-runtime.js", "ui/popup/popup.js", "ui/options/options.js"]) {
    const src = readFileSync(path("../src/" + f), "utf8");
    assert.doesNotMatch(src, /\beval\s*\(|new\s+Function\s*\(/, f);
  }
});
