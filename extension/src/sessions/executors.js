// The executors of every action of scope "tab" (ACTION_SPECS), one module
// per action family, and the capabilities each family's executors get
// (sessions/capabilities.js): nothing else of the tab reaches them.
// Adding an action is a schema edit plus an executor in one of these
// modules (and, for a new family, its row here).

import { ACTION_SPECS } from "../generated/protocol.js";
import * as nav from "../actions/nav.js";
import * as pointer from "../actions/pointer.js";
import * as keyboard from "../actions/keyboard.js";
import * as scroll from "../actions/scroll.js";
import * as forms from "../actions/forms.js";
import * as capture from "../actions/capture.js";
import * as extract from "../actions/extract.js";
import * as evaluate from "../actions/evaluate.js";
import * as wait from "../actions/wait.js";
import * as describe from "../actions/describe.js";
import * as dialog from "../actions/dialog.js";
import * as handoff from "../actions/handoff.js";
import * as trace from "../actions/trace.js";

const FAMILIES = [
  [nav, ["cdp", "events", "reads"]], // navigate, reload, go_back, go_forward
  [pointer, ["cdp", "events", "uids", "input"]], // click, hover
  [keyboard, ["cdp", "events", "uids", "input"]], // type, press_key
  [scroll, ["cdp"]],
  [forms, ["cdp", "events", "uids", "input"]], // select_option, upload
  [capture, ["cdp", "reads"]], // screenshot (labels read the last read, or make one)
  [extract, ["cdp", "reads"]],
  [evaluate, ["cdp", "evaluating"]],
  [wait, ["cdp", "events", "uids"]], // wait_for
  [describe, ["cdp", "uids"]],
  [dialog, ["dialogs"]], // handle_dialog
  [handoff, ["handoff"]],
  [trace, ["trace"]], // get_trace, passive: no attach, no page
];

const rows = FAMILIES.flatMap(([m, uses]) => Object.entries(m.executors).map(([type, fn]) => [type, fn, Object.freeze(uses)])).filter(
  ([type]) => Object.hasOwn(ACTION_SPECS, type) && ACTION_SPECS[type].scope === "tab",
);

// TAB_EXECUTORS maps every action of scope "tab" to its executor, (ctx,
// action) -> result.
export const TAB_EXECUTORS = Object.freeze(Object.fromEntries(rows.map(([type, fn]) => [type, fn])));

// USES maps every action of scope "tab" to the capabilities its ctx holds.
export const USES = Object.freeze(Object.fromEntries(rows.map(([type, , uses]) => [type, uses])));
