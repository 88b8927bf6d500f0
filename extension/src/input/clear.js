// type's clear: true (feature type_clear): the focused field's value is
// selected and deleted before the text goes in, so the page sees what a
// person's select-all and Delete make it see (keydown, beforeinput, input
// with inputType deleteContentForward, keyup), then the text's insert.
// Playwright's fill selects the same way (input.select(), a textarea's
// whole range, a contenteditable host's contents) and then inserts, which
// replaces the selection in one input event; deleting first instead makes
// an empty text clear the field too, and a field that reacts to its value
// going empty (a search box's suggestions) sees it.
//
// A field no one types into has its value set instead, as a fill sets it
// (@puppeteer/replay's change step, which Chrome's Recorder writes for
// every field, and Playwright's fill for the input types it sets): a
// <select> gets the option whose value, else whose label, is the text; a
// color, date, time, datetime-local, month, range or week input the text
// as its value; then input and change fire, bubbling, as a person's
// choice fires them.
//
// The field is the element focused once type's probe has focused its
// target: the target itself, or the inner field a wrapper handed focus to.
// It is found from the focused document through open shadow roots and
// same-origin frames; an out-of-process frame's own session is asked when
// the focus went there.

import { keyboard } from "./input.js";
import { invalid } from "../core/cdp.js";

// SELECT_FOCUSED selects the focused field's whole value and answers
// {selected: true}, {empty: true} when there is nothing to clear,
// {frame: true} when the focus is in an out-of-process frame, {none: tag}
// when the focused element is not a field, or {unfocused: true} when
// (with own) this document does not hold the focus. A <select> or an
// input that takes no typing gets text as its value instead: {filled:
// true}, or {noOption: [values]} when no option of the select has it,
// {malformed: type} when the input refuses it.
export const SELECT_FOCUSED = `function (own, text) { /* bua:clear */
  if (own && !document.hasFocus()) return { unfocused: true };
  let doc = document;
  let el = doc.activeElement;
  for (;;) {
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (el && (el.localName === "iframe" || el.localName === "frame")) {
      let d = null;
      try { d = el.contentDocument; } catch (e) { d = null; }
      if (!d) return { frame: true };
      doc = d;
      el = d.activeElement;
      continue;
    }
    break;
  }
  if (!el) return { none: "" };
  const fire = () => {
    el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
    return { filled: true };
  };
  if (el.localName === "select") {
    const opts = Array.from(el.options);
    const norm = (s) => s.replace(/\\s+/g, " ").trim();
    const opt = opts.find((o) => o.value === text) || opts.find((o) => norm(o.label) === norm(text));
    if (!opt) return { noOption: opts.slice(0, 10).map((o) => o.value) };
    for (const o of opts) o.selected = o === opt;
    return fire();
  }
  if (el.localName === "input" && ["color", "date", "time", "datetime-local", "month", "range", "week"].includes(el.type)) {
    const was = el.value;
    el.value = text;
    if (el.value !== text) {
      el.value = was; // the input emptied itself on a value it refuses
      return { malformed: el.type };
    }
    return fire();
  }
  if (el.localName === "input" || el.localName === "textarea") {
    if (!el.value) return { empty: true };
    el.select();
    return { selected: true };
  }
  if (el.isContentEditable) {
    let host = el;
    while (host.parentElement && host.parentElement.isContentEditable) host = host.parentElement;
    if (!host.textContent && !host.querySelector("img,br")) return { empty: true };
    const range = doc.createRange();
    range.selectNodeContents(host);
    const sel = (el.getRootNode().getSelection ? el.getRootNode() : doc).getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    return { selected: true };
  }
  return { none: el.localName };
}`;

// clearFocused selects the focused field's value (in the tab's session,
// else in the out-of-process frame that holds the focus) and deletes it
// with the Delete key (input/input.js), which goes to the focused frame as
// typing does. A field already empty gets no key. It answers true when
// the field was filled with text instead (a <select>, a date input...:
// SELECT_FOCUSED), so there is nothing left to type; a text such a field
// cannot take is invalid_action.
export async function clearFocused(ctx, text) {
  const ask = (session, own) =>
    (session ? (m, p) => ctx.sendTo(session, m, p) : ctx.send)("Runtime.evaluate", {
      expression: `(${SELECT_FOCUSED})(${own}, ${JSON.stringify(text)})`,
      returnByValue: true,
    }).then((r) => (r.result && r.result.value) || {});
  let st = await ask(null, false);
  if (st.frame) {
    const frames = ctx.frames ? ctx.frames() : [];
    const answers = await Promise.allSettled(frames.map((f) => ask(f.sessionId, true)));
    st = answers.map((a) => (a.status === "fulfilled" ? a.value : {})).find((v) => !v.unfocused) || {};
  }
  if (st.noOption) throw invalid(`the <select> has no option whose value or label is ${JSON.stringify(text)} (values: ${st.noOption.join(", ")})`);
  if (st.malformed) throw invalid(`${JSON.stringify(text)} is not a value an <input type=${st.malformed}> takes`);
  if (st.filled) return true;
  if (st.selected) await keyboard(ctx).press("Delete", { together: true });
  return false;
}
