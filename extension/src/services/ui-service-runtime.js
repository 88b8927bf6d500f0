// The pages' UiService (services/ui-service.js;
// docs/extension.md#layering): every method is a chrome.runtime.sendMessage to
// the worker, which answers from its local service; subscribeState is a
// chrome.runtime.connect port the worker posts each new state on. Built
// from the contract's METHODS table, so a method added there is proxied
// here without more code.

import { METHODS, STATE_KIND, STATE_PORT, argsFor, request, unwrapResponse } from "./ui-service.js";

// createRuntimeUiService proxies the contract over runtime, an object
// with chrome.runtime's sendMessage(msg) -> Promise and connect({name}) ->
// Port. Defaults to the page's chrome.runtime: this file, not the UI, is
// where a page meets chrome.*.
export function createRuntimeUiService(runtime = globalThis.chrome && globalThis.chrome.runtime) {
  const service = {};
  for (const [method, { op }] of Object.entries(METHODS)) {
    service[method] = async (...callArgs) => {
      let resp;
      try {
        resp = await runtime.sendMessage(request(op, argsFor(method, callArgs)));
      } catch {
        resp = undefined; // the worker is gone: unwrapResponse says so
      }
      return unwrapResponse(op, resp);
    };
  }
  // subscribeState calls fn with each state the worker posts; the port's
  // closing (the worker restarting) reconnects it, so a page left open
  // keeps following.
  service.subscribeState = (fn) => {
    let port = null;
    let closed = false;
    const open = () => {
      port = runtime.connect({ name: STATE_PORT });
      port.onMessage.addListener((msg) => {
        if (msg && msg.kind === STATE_KIND && msg.state) fn(msg.state);
      });
      port.onDisconnect.addListener(() => {
        if (!closed) setTimeout(open, 200);
      });
    };
    open();
    return () => {
      closed = true;
      try {
        port.disconnect();
      } catch {
        /* already gone */
      }
    };
  };
  return service;
}
