// The contract between the extension's pages (popup, options) and its
// service worker (docs/extension.md#layering: Contract → Service →
// UI). One interface, UiService, with two implementations:
// services/ui-service-local.js in the worker (the real work) and
// services/ui-service-runtime.js in a page (a proxy over
// chrome.runtime). UI code depends on this file only, so its tests hand it
// a fake service. This file is also the one typed runtime-message module:
// the op names, the request check and the response shape are defined here
// and nowhere else. Pure: no chrome.*. It is named for the pages it
// serves: "bridge" names the daemon (pkg/bridge).

/**
 * @typedef {"connected"|"connecting"|"rejected"|"replaced"|"disconnected"} ConnectionStateName
 *
 * @typedef {object} ConnectionState
 * @property {ConnectionStateName} state
 * @property {string} [reason]    what happened, e.g. the daemon's reject message
 * @property {string} [fix]       what the person can do about it
 * @property {number} [closeCode] the WebSocket close code, when one ended it
 * @property {string} url         the daemon URL the worker dials
 * @property {"managed"|"user"|"default"} kind where the pairing came from
 *
 * @typedef {object} LiveSession
 * @property {number} tabId
 * @property {string} domain
 * @property {string} title        the tab's title ("" when unknown)
 * @property {number} actionCount
 * @property {number} startedAt    epoch ms
 *
 * @typedef {object} Handoff  a tab where bua waits for the person
 * @property {number} tabId
 * @property {string} domain
 * @property {string} obstacleType e.g. "captcha", "auth_wall"
 * @property {string} message
 * @property {number} since        epoch ms
 *
 * @typedef {object} Recording  a tab `bua record` records the person's input on
 * @property {number} tabId      the tab it started on, which names it
 * @property {number[]} tabs     every tab it follows (tabs a click opened too)
 * @property {number} lastTab    the tab of its last step, which the checks read
 * @property {string} title      that tab's title ("" when unknown)
 * @property {number} steps      how many steps it has made
 * @property {number} startedAt  epoch ms
 *
 * @typedef {object} UiState
 * @property {ConnectionState} connection
 * @property {LiveSession[]} sessions  oldest first
 * @property {Handoff[]} handoffs
 * @property {Recording[]} recordings  the live ones, oldest first
 * @property {string[]} blocklist
 *
 * @typedef {object} HistoryEntry  one line of the audit log (sessionHistory)
 * @property {number} tabId
 * @property {string} domain
 * @property {number} startedAt  epoch ms
 * @property {number} endedAt    epoch ms
 * @property {number} actionCount
 * @property {string} reason     one of the seven session end reasons
 *
 * @typedef {object} BridgeConfig
 * @property {string} url      the daemon's WebSocket URL
 * @property {string} token    the pairing token ("" when none)
 * @property {boolean} managed true when pairing.json (bua browser start) decides
 * @property {"managed"|"user"|"default"} kind
 *
 * @typedef {object} UiService
 * @property {() => Promise<UiState>} getState
 * @property {(fn: (s: UiState) => void) => (() => void)} subscribeState
 *   calls fn with every new state (the first one as soon as it is known);
 *   returns the unsubscribe function.
 * @property {(tabId: number) => Promise<{endedCount: number}>} stopSession
 *   the popup's Stop: ends that tab's session with user_stopped.
 * @property {(tabId: number) => Promise<{steps: number}>} stopRecording
 *   the popup's Stop on a recording: ends it as Ctrl-C on `bua record`
 *   does (user_stopped); bua record writes its flow.
 * @property {(req: {tabId: number, what: "url"|"title"}) => Promise<{url?: string, title?: string}>} assertPage
 *   adds a check to the recording: the page's URL, or its title, is what
 *   it is now.
 * @property {() => Promise<{endedCount: number}>} stopAll
 *   Stop all: ends every session with global_stop and sends global_stop.
 * @property {(tabId: number) => Promise<{}>} focusTab brings a tab forward
 * @property {() => Promise<BridgeConfig>} getConfig
 * @property {(cfg: {url: string, token: string}) => Promise<{}>} saveConfig
 *   stores bridge_config and reconnects with it.
 * @property {(req: {url: string, code: string}) => Promise<{url: string}>} claimCode
 *   trades a one-time code from `bua pair --code` for a token.
 * @property {(req?: {timeoutMs?: number}) => Promise<ConnectionState>} testConnection
 *   reconnects and answers the state it settles in (connected, rejected…).
 * @property {(domain: string) => Promise<{blocklist: string[], endedCount: number}>} addBlocked
 * @property {(domain: string) => Promise<{blocklist: string[]}>} removeBlocked
 * @property {() => Promise<HistoryEntry[]>} getHistory  oldest first
 * @property {() => Promise<{}>} reset clears bridge_config, the blocklist
 *   and the history (the page asks the person to confirm first).
 */

// MESSAGE_KIND tags a page's request to the worker, so the worker never
// mistakes another message bus's traffic for one (the design
// material's kind "bridge_request").
export const MESSAGE_KIND = "bua_bridge_request";
// STATE_PORT is the chrome.runtime.connect port name subscribeState uses;
// the worker posts {kind: STATE_KIND, state} on it at every change.
export const STATE_PORT = "bua_bridge_state";
export const STATE_KIND = "bua_bridge_state";

export const CONNECTION_STATES = Object.freeze(["connected", "connecting", "rejected", "replaced", "disconnected"]);

// OPS are the runtime message ops, one per UiService method
// (subscribeState goes over the STATE_PORT port instead).
export const OPS = Object.freeze({
  GET_STATE: "get_state",
  STOP_SESSION: "stop_session",
  STOP_ALL: "stop_all",
  STOP_RECORDING: "stop_recording",
  ASSERT_PAGE: "assert_page",
  FOCUS_TAB: "focus_tab",
  GET_CONFIG: "get_config",
  SAVE_CONFIG: "save_config",
  CLAIM_CODE: "claim_code",
  TEST_CONNECTION: "test_connection",
  ADD_BLOCKED: "add_blocked",
  REMOVE_BLOCKED: "remove_blocked",
  GET_HISTORY: "get_history",
  RESET: "reset",
});

// METHODS maps each UiService method to its op and how its arguments
// become the message's args: "none", "tabId" and "domain" (one positional
// argument under that name), "object" (one object, its fields the args).
export const METHODS = Object.freeze({
  getState: Object.freeze({ op: OPS.GET_STATE, args: "none" }),
  stopSession: Object.freeze({ op: OPS.STOP_SESSION, args: "tabId" }),
  stopAll: Object.freeze({ op: OPS.STOP_ALL, args: "none" }),
  stopRecording: Object.freeze({ op: OPS.STOP_RECORDING, args: "tabId" }),
  assertPage: Object.freeze({ op: OPS.ASSERT_PAGE, args: "object" }),
  focusTab: Object.freeze({ op: OPS.FOCUS_TAB, args: "tabId" }),
  getConfig: Object.freeze({ op: OPS.GET_CONFIG, args: "none" }),
  saveConfig: Object.freeze({ op: OPS.SAVE_CONFIG, args: "object" }),
  claimCode: Object.freeze({ op: OPS.CLAIM_CODE, args: "object" }),
  testConnection: Object.freeze({ op: OPS.TEST_CONNECTION, args: "object" }),
  addBlocked: Object.freeze({ op: OPS.ADD_BLOCKED, args: "domain" }),
  removeBlocked: Object.freeze({ op: OPS.REMOVE_BLOCKED, args: "domain" }),
  getHistory: Object.freeze({ op: OPS.GET_HISTORY, args: "none" }),
  reset: Object.freeze({ op: OPS.RESET, args: "none" }),
});

// ARGS is each op's argument fields and their types; a field ending in "?"
// is optional. Anything else in args is refused.
const ARGS = Object.freeze({
  [OPS.STOP_SESSION]: { tabId: "tabId" },
  [OPS.FOCUS_TAB]: { tabId: "tabId" },
  [OPS.STOP_RECORDING]: { tabId: "tabId" },
  [OPS.ASSERT_PAGE]: { tabId: "tabId", what: "check" },
  [OPS.SAVE_CONFIG]: { url: "string", token: "string" },
  [OPS.CLAIM_CODE]: { url: "string", code: "string" },
  [OPS.TEST_CONNECTION]: { "timeoutMs?": "ms" },
  [OPS.ADD_BLOCKED]: { domain: "string" },
  [OPS.REMOVE_BLOCKED]: { domain: "string" },
});

// SERVICE_ERRORS are the codes a failed call carries.
export const SERVICE_ERRORS = Object.freeze({
  BAD_REQUEST: "bad_request", // not a well-formed request of this contract
  INVALID_INPUT: "invalid_input", // a domain, URL or code that cannot be right
  MANAGED: "managed", // the pairing belongs to `bua browser start`
  NOT_FOUND: "not_found", // no such session or tab
  CLAIM_FAILED: "claim_failed", // the daemon refused the code, or is unreachable
  INTERNAL: "internal", // the worker failed; its message says how
  DISCONNECTED: "disconnected", // the page lost the worker (runtime side only)
});

// ServiceError is how a UiService call fails: code is one of
// SERVICE_ERRORS, message says what happened and what to do.
export class ServiceError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "ServiceError";
    this.code = Object.values(SERVICE_ERRORS).includes(code) ? code : SERVICE_ERRORS.INTERNAL;
  }
}

const isType = {
  string: (v) => typeof v === "string" && v.length <= 4096,
  tabId: (v) => Number.isInteger(v) && v >= 0,
  ms: (v) => Number.isInteger(v) && v > 0 && v <= 60000,
  check: (v) => v === "url" || v === "title",
};
const TYPE_WORDS = { tabId: "a tab id (integer)", ms: "1-60000 ms", check: '"url" or "title"', string: "a string" };

// validateRequest checks a runtime message against the contract. Returns
// {ok: true, op, args} or {ok: false, message}; a message of another kind
// is {ok: false, foreign: true} so the worker leaves it to its owner.
export function validateRequest(msg) {
  if (!msg || typeof msg !== "object" || msg.kind !== MESSAGE_KIND) return { ok: false, foreign: true, message: "not a bua bridge request" };
  if (!Object.values(OPS).includes(msg.op)) return { ok: false, message: `unknown op ${JSON.stringify(msg.op)}: want one of ${Object.values(OPS).join(", ")}` };
  const args = msg.args === undefined ? {} : msg.args;
  if (!args || typeof args !== "object" || Array.isArray(args)) return { ok: false, message: `${msg.op}: args must be an object` };
  const spec = ARGS[msg.op] || {};
  const known = new Set(Object.keys(spec).map((k) => k.replace(/\?$/, "")));
  for (const k of Object.keys(args)) {
    if (!known.has(k)) return { ok: false, message: `${msg.op}: unexpected argument ${JSON.stringify(k)}` };
  }
  for (const [key, type] of Object.entries(spec)) {
    const name = key.replace(/\?$/, "");
    if (args[name] === undefined && key.endsWith("?")) continue;
    if (!isType[type](args[name])) return { ok: false, message: `${msg.op}: ${name} must be ${TYPE_WORDS[type]}` };
  }
  return { ok: true, op: msg.op, args };
}

// request builds the runtime message for op.
export function request(op, args = {}) {
  return { kind: MESSAGE_KIND, op, args };
}

// okResponse and errorResponse are the two response shapes:
// {ok: true, value} and {ok: false, error: {code, message}}.
export function okResponse(value) {
  return { ok: true, value: value === undefined ? {} : value };
}
export function errorResponse(code, message) {
  return { ok: false, error: { code: new ServiceError(code, message).code, message: String(message) } };
}

// unwrapResponse returns a response's value or throws its ServiceError; a
// missing or malformed response (the worker gone) is DISCONNECTED.
export function unwrapResponse(op, resp) {
  if (resp && resp.ok === true) return resp.value;
  if (resp && resp.ok === false && resp.error && typeof resp.error.message === "string") {
    throw new ServiceError(resp.error.code, resp.error.message);
  }
  throw new ServiceError(SERVICE_ERRORS.DISCONNECTED, `the extension's service worker did not answer ${op}: reload the page, or the extension from chrome://extensions`);
}

// argsFor turns a method call's arguments into the op's args (METHODS).
export function argsFor(method, callArgs) {
  const m = METHODS[method];
  switch (m.args) {
    case "tabId":
      return { tabId: callArgs[0] };
    case "domain":
      return { domain: callArgs[0] };
    case "object":
      return callArgs[0] === undefined ? {} : callArgs[0];
    default:
      return {};
  }
}

// callLocal invokes the local service's method for a validated request.
export function callLocal(service, op, args) {
  const method = Object.keys(METHODS).find((k) => METHODS[k].op === op);
  const m = METHODS[method];
  switch (m.args) {
    case "tabId":
      return service[method](args.tabId);
    case "domain":
      return service[method](args.domain);
    case "object":
      return service[method](args);
    default:
      return service[method]();
  }
}
