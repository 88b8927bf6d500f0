// The recorder's page-side rules (page/recorder.js): which element a
// click means, how a field takes input, which keys are steps, what an
// Alt+Shift+click checks. Pure over the elements and events they are
// given; node-tested with stand-ins for both (test/recorder.test.js).

// interactiveTarget is the element a click on el acts on, as a person
// means it: el's nearest interactive ancestor (a link, a button, a form
// control, an element with a widget role, a handler or a tab stop), el
// itself when none. A click on a <label> acts on its control.
export function interactiveTarget(el) {
  const TAGS = /^(button|input|select|textarea|summary|option)$/;
  const ROLES = /^(button|link|checkbox|radio|switch|tab|menuitem|menuitemcheckbox|menuitemradio|option|combobox|textbox|searchbox|slider|spinbutton|treeitem|gridcell)$/;
  for (let e = el; e && e.nodeType === 1 && e.localName !== "body" && e.localName !== "html"; e = e.parentElement) {
    const tag = e.localName;
    if (tag === "label" && e.control) return { el: e.control, viaLabel: true };
    if (TAGS.test(tag) || (tag === "a" && e.hasAttribute("href"))) return { el: e, viaLabel: false };
    if (ROLES.test(e.getAttribute("role") || "") || e.hasAttribute("onclick")) return { el: e, viaLabel: false };
    if (e.getAttribute("contenteditable") === "true" || e.getAttribute("contenteditable") === "") return { el: e, viaLabel: false };
    const tab = e.getAttribute("tabindex");
    if (tab !== null && Number(tab) >= 0) return { el: e, viaLabel: false };
  }
  return { el, viaLabel: false };
}

// fieldKind says how the recorder takes input into el: "text" (typed
// text, recorded as its final value), "multiline" (the same, where Enter
// types a newline), "select", "file", "toggle" (a checkbox or radio, whose
// click is the step), or "" (none of these).
export function fieldKind(el) {
  if (!el || el.nodeType !== 1) return "";
  const tag = el.localName;
  if (tag === "textarea") return "multiline";
  if (tag === "select") return "select";
  if (el.isContentEditable) return "multiline";
  if (tag !== "input") return "";
  const type = String(el.type || el.getAttribute("type") || "text").toLowerCase();
  if (type === "checkbox" || type === "radio") return "toggle";
  if (type === "file") return "file";
  if (/^(text|email|password|search|tel|url|number|date|time|datetime-local|month|week)$/.test(type)) return "text";
  return "";
}

// isSecretField says whether text typed into el is a secret: a password
// field, or one whose autocomplete ends in password or one-time-code
// (result.describe's rule, and the flow writer's).
export function isSecretField(el) {
  if (!el || el.localName !== "input") return false;
  const type = String(el.type || el.getAttribute("type") || "").toLowerCase();
  const ac = String(el.getAttribute("autocomplete") || "").trim().toLowerCase();
  return type === "password" || /password$/.test(ac) || /one-time-code$/.test(ac);
}

// keyChord names a keydown as press_key takes it: the modifiers (Control,
// Shift, Alt, Meta, in the schema's order) and the key, "Control+s",
// "Shift+Tab", "Enter", "?". A character typed with Shift alone is the
// character ("A", "?"). null for a modifier alone, a dead key or a key
// press_key cannot name.
export function keyChord(e) {
  if (/^(Control|Shift|Alt|Meta|AltGraph|CapsLock|NumLock|Fn|FnLock|Dead|Unidentified|Process|Compose)$/.test(e.key)) return null;
  let key = e.key === " " ? "Space" : e.key;
  const named = /^(Enter|Tab|Escape|Backspace|Delete|Space|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|Home|End|PageUp|PageDown|F[1-9]|F1[0-2])$/.test(key);
  if (!named && [...key].length !== 1) return null;
  const chord = e.ctrlKey || e.altKey || e.metaKey;
  if (!named && chord && /^Key[A-Z]$/.test(e.code || "")) key = e.code.slice(3).toLowerCase();
  if (!named && chord && /^Digit[0-9]$/.test(e.code || "")) key = e.code.slice(5);
  const mods = [];
  if (e.ctrlKey) mods.push("Control");
  if (e.shiftKey && (named || chord)) mods.push("Shift");
  if (e.altKey) mods.push("Alt");
  if (e.metaKey) mods.push("Meta");
  return [...mods, key].join("+");
}

// keyStep says whether a key the person pressed (chord, from keyChord) is
// a step of its own, where the focus is: in a text field (kind "text" or
// "multiline", whose typing the field's final value records), on an
// element, or on the page itself (document.body: the keys that scroll are
// reading, not steps).
export function keyStep(chord, kind, onPage) {
  const parts = chord.split("+");
  const key = parts[parts.length - 1];
  const withMod = parts.some((p) => p === "Control" || p === "Alt" || p === "Meta");
  if (kind === "text" || kind === "multiline") {
    if (key === "Enter") return kind === "text" || withMod;
    if (key === "Escape" || key === "Tab" || /^F\d+$/.test(key)) return true;
    // Editing keys are part of the typing, which the final value records.
    return withMod && !/^(a|c|v|x|z|y|Backspace|Delete|ArrowLeft|ArrowRight|ArrowUp|ArrowDown|Home|End)$/.test(key);
  }
  // A <select>'s keys make its change (Enter and Escape close its list), a
  // radio's arrows its click: those are the steps.
  if (kind === "select" && !withMod) return /^(Tab|F\d+)$/.test(key);
  if (kind === "toggle" && !withMod) return /^(Enter|Escape|Tab|F\d+)$/.test(key);
  if (onPage && !withMod && /^(Space|ArrowUp|ArrowDown|ArrowLeft|ArrowRight|PageUp|PageDown|Home|End)$/.test(key)) return false;
  return key !== "Space" || withMod;
}

// assertText is the text an Alt+Shift+click on el asks to wait for: the
// innermost text under the pointer (el's, else its nearest ancestor's
// that has some), whitespace collapsed, cut at a word to 80 characters.
export function assertText(el) {
  for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const t = String(e.innerText || e.textContent || "").replace(/\s+/g, " ").trim();
    if (!t) continue;
    if (t.length <= 80) return t;
    const cut = t.slice(0, 80);
    const at = cut.lastIndexOf(" ");
    return at > 20 ? cut.slice(0, at) : cut;
  }
  return "";
}
