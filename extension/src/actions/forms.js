// select_option and upload: form controls a mouse click cannot set. The
// select's options are chosen in the page and input and change are fired
// as a person's choice fires them; a file input's files are set through
// DOM.setFileInputFiles, after which Chrome fires input and change itself.
// Both settle after the input as click does (a change handler may submit).

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { invalid, notFound } from "../core/cdp.js";
import { ACTIONABLE } from "../input/checks.js";
import { describeTarget, gone, locate } from "../target/locate.js";
import { waitActionable } from "../input/actionability.js";
import { settleAfter } from "../input/settle.js";

// SELECT runs in the page with `this` = the target. Unless force, it
// waits (answers {ok: false, why}) while the select is not visible or not
// enabled, or an option to choose is disabled (itself or its optgroup), as
// Playwright's selectOption does. When it may act it sets every option's
// selected state at once, then fires input (composed) and change, both
// bubbling, as Chrome does after a person's choice. Labels compare with
// whitespace collapsed and trimmed, non-breaking spaces included.
export const SELECT = `function (force, by, items) { /* bua:select */
  const el = this;
  if (!el.isConnected) return { connected: false };
  if (el.localName !== "select") {
    let d = "<" + el.localName;
    if (el.type && el.localName === "input") d += " type=" + el.type;
    return { connected: true, notSelect: d + ">" };
  }
  if (!force) {
    const st = (${ACTIONABLE}).call(el);
    if (!st.visible) return { connected: true, ok: false, why: "not visible" };
    if (!st.enabled) return { connected: true, ok: false, why: "not enabled" };
  }
  const norm = (s) => String(s).replace(/\\s+/g, " ").trim();
  const options = Array.from(el.options);
  const picked = [];
  for (const it of items) {
    let o;
    if (by === "value") o = options.find((x) => x.value === it);
    else if (by === "label") o = options.find((x) => norm(x.label) === norm(it));
    else o = options[it];
    if (!o) {
      const shown = options.slice(0, 12).map((x) => by === "label" ? norm(x.label) : x.value);
      return { connected: true, missing: it, count: options.length, shown };
    }
    const group = o.parentElement && o.parentElement.localName === "optgroup" ? o.parentElement : null;
    if (!force && (o.disabled || (group && group.disabled))) {
      return { connected: true, ok: false, why: "choosing a disabled option (" + JSON.stringify(norm(o.label)) + ")" };
    }
    if (!picked.includes(o)) picked.push(o);
  }
  if (!el.multiple && picked.length > 1) return { connected: true, tooMany: picked.length };
  for (const o of options) o.selected = picked.includes(o);
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return { connected: true, ok: true, values: options.filter((o) => o.selected).map((o) => o.value) };
}`;

// pickedBy returns which of value, label or index the action picks by, and
// its items as a list (the schema lets one item stand for a list of one).
export function pickedBy(action) {
  for (const by of ["value", "label", "index"]) {
    if (action[by] !== undefined) return { by, items: Array.isArray(action[by]) ? action[by] : [action[by]] };
  }
  throw invalid("select_option needs one of value, label or index");
}

export async function selectOption(ctx, action) {
  const { by, items } = pickedBy(action);
  const force = action.force === true;
  const label = describeTarget(action);
  let values;
  await settleAfter(ctx, "select_option", async () => {
    const r = await waitActionable(ctx, action, async () => {
      const { target } = await locate(ctx, action);
      const res = await ctx.send("Runtime.callFunctionOn", {
        objectId: target.objectId,
        functionDeclaration: SELECT,
        arguments: [{ value: force }, { value: by }, { value: items }],
        returnByValue: true,
      });
      if (res.exceptionDetails) throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `select_option failed in the page: ${res.exceptionDetails.text}`);
      return selectVerdict(label, by, res.result && res.result.value);
    });
    values = r.values;
  });
  return { values };
}

// selectVerdict turns SELECT's answer into a probe result or the error
// waiting cannot fix.
export function selectVerdict(label, by, st) {
  if (!st || !st.connected) throw gone(label);
  if (st.notSelect) {
    throw invalid(`${label} is not a <select> element (it is ${st.notSelect}): select_option chooses a <select>'s options; click the options of a custom list instead`);
  }
  if (st.missing !== undefined) {
    const more = st.count > st.shown.length ? `, … (${st.count} in all)` : "";
    const list = st.shown.map((x) => JSON.stringify(x)).join(", ");
    const what = by === "index" ? `no option at index ${st.missing}` : `no option with ${by} ${JSON.stringify(st.missing)}`;
    throw notFound(`${label} has ${what}: its options' ${by === "index" ? "values" : by + "s"} are ${list || "none"}${more}`);
  }
  if (st.tooMany) {
    throw invalid(`${label} takes one option (it has no multiple attribute), and ${st.tooMany} were given: pass one`);
  }
  return st;
}

// FILE_INPUT runs in the page with `this` = the target: what upload needs
// to know before setting files. A file input need not be visible (pages
// hide it behind a styled button), so there is no actionability wait.
const FILE_INPUT = `function (n) {
  const el = this;
  if (!el.isConnected) return { connected: false };
  if (el.localName !== "input" || el.type !== "file") {
    let d = "<" + el.localName;
    if (el.localName === "input") d += " type=" + el.type;
    return { connected: true, notFile: d + ">" };
  }
  if (n > 1 && !el.multiple) return { connected: true, tooMany: true };
  return { connected: true, ok: true, disabled: el.disabled };
}`;

export async function upload(ctx, action) {
  const files = action.files;
  const label = describeTarget(action);
  const { target } = await locate(ctx, action);
  const res = await ctx.send("Runtime.callFunctionOn", {
    objectId: target.objectId,
    functionDeclaration: FILE_INPUT,
    arguments: [{ value: files.length }],
    returnByValue: true,
  });
  const st = res.result && res.result.value;
  if (!st || !st.connected) throw notFound(`${label} is no longer in the page (removed since the extract)`);
  if (st.notFile) throw invalid(`${label} is not a file input (it is ${st.notFile}): upload sets the files of an <input type=file>`);
  if (st.tooMany) throw invalid(`${label} takes one file (it has no multiple attribute), and ${files.length} were given: pass one`);
  if (st.disabled) throw invalid(`${label} is disabled: a person could not choose files for it either`);
  if (files.length === 0) {
    // DOM.setFileInputFiles with no files leaves the old ones in place.
    return settleAfter(ctx, "upload", () => ctx.send("Runtime.callFunctionOn", { objectId: target.objectId, functionDeclaration: CLEAR_FILES }));
  }
  return settleAfter(ctx, "upload", () => ctx.send("DOM.setFileInputFiles", { files, backendNodeId: target.backendNodeId }));
}

// CLEAR_FILES empties a file input and fires input and change, as the
// files changing through the dialog would.
const CLEAR_FILES = `function () {
  if (this.files.length === 0) return;
  this.value = "";
  this.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  this.dispatchEvent(new Event("change", { bubbles: true }));
}`;

export const executors = Object.freeze({ select_option: selectOption, upload });
