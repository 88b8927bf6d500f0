// The trace ring buffer (docs/extension.md §Trace): for each attached tab, a bounded ring of what the page and bua
// did recently, read with get_trace. This file is pure: the debugger
// controller feeds it CDP events and bua's own action ends, and reads it.
//
// Bounds, all at once (docs/extension.md §Trace, schema
// $defs/action.get_trace): TRACE_MAX_EVENTS events and TRACE_MAX_BYTES
// bytes per tab (each event counted as the UTF-8 length of its JSON, the
// size get_trace sends), the oldest evicted first; and rings for at most
// TRACE_MAX_TABS tabs, the least recently used one dropped first. Worst
// case: 16 × 256 KiB = 4 MiB.
//
// What it keeps is chosen so that nothing secret leaks: requests by URL,
// method and status only (no headers, so no cookies or tokens, and no
// bodies: the requests come from chrome.webRequest, asked for neither), and bua's actions by type, duration and error code only (never
// the text a type action typed).

export const TRACE_MAX_EVENTS = 500;
export const TRACE_MAX_BYTES = 256 * 1024;
export const TRACE_MAX_TABS = 16;

// Field limits: the schema's maxLength of $defs/traceEvent.
export const LIMITS = Object.freeze({ text: 1000, url: 2048, errorText: 200, level: 16, method: 16, action: 32 });

// clip returns s cut to max UTF-16 units, ending in "…" when cut, never
// splitting a surrogate pair. A cut string is copied, so the ring never
// keeps alive the (maybe megabytes long) string it was cut from: V8's
// slice shares its parent's storage.
export function clip(s, max) {
  if (typeof s !== "string") return "";
  if (s.length <= max) return s;
  let cut = s.slice(0, max - 1);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return JSON.parse(JSON.stringify(cut + "…"));
}

// utf8Length is the number of bytes s takes in UTF-8.
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export function eventBytes(ev) {
  return utf8Length(JSON.stringify(ev));
}

// createTraceRing is one tab's ring. Events get seq firstSeq, firstSeq+1, …
// in the order they are pushed, and t (Unix ms) when pushed unless they
// carry one.
export function createTraceRing({ maxEvents = TRACE_MAX_EVENTS, maxBytes = TRACE_MAX_BYTES, firstSeq = 1, now = Date.now } = {}) {
  let events = []; // oldest first
  let sizes = [];
  let head = 0; // index of the oldest event still held
  let bytes = 0;
  let nextSeq = firstSeq;

  function evictOldest() {
    bytes -= sizes[head];
    events[head] = undefined;
    head++;
    // Compact now and then, so eviction stays O(1) amortised.
    if (head > 64 && head * 2 > events.length) {
      events = events.slice(head);
      sizes = sizes.slice(head);
      head = 0;
    }
  }

  return {
    push(ev) {
      const { seq: _ignored, t, ...rest } = ev;
      const e = { seq: nextSeq++, t: typeof t === "number" ? t : now(), ...rest };
      const size = eventBytes(e);
      events.push(e);
      sizes.push(size);
      bytes += size;
      while (events.length - head > maxEvents || bytes > maxBytes) evictOldest();
      return e;
    },
    // read returns {events, nextSeq, dropped}: the events held whose seq is
    // at least sinceSeq (0: all), the seq the next event will get, and how
    // many events from sinceSeq on the ring had already evicted. A sinceSeq
    // beyond nextSeq comes from a reader of an earlier ring (the worker
    // restarted, or the tab's ring was dropped): it reads the whole ring.
    read(sinceSeq = 0) {
      const first = events.length > head ? events[head].seq : nextSeq;
      let since = Number.isInteger(sinceSeq) && sinceSeq > 0 ? sinceSeq : 1;
      if (since > nextSeq) since = 1;
      const out = [];
      for (let i = head; i < events.length; i++) if (events[i].seq >= since) out.push(events[i]);
      return { events: out, nextSeq, dropped: Math.max(0, first - since) };
    },
    get size() {
      return events.length - head;
    },
    get bytes() {
      return bytes;
    },
    get nextSeq() {
      return nextSeq;
    },
  };
}

// CONSOLE_LEVELS maps Runtime.consoleAPICalled's type to the trace's level.
const CONSOLE_LEVELS = { error: "error", assert: "error", warning: "warning", info: "info", debug: "debug" };

// describeArg renders one console argument (a CDP RemoteObject) as
// DevTools' console would in one line, briefly.
function describeArg(o) {
  if (!o || typeof o !== "object") return String(o);
  if (o.type === "string") return String(o.value);
  if (o.unserializableValue !== undefined) return String(o.unserializableValue);
  if (o.type === "undefined") return "undefined";
  if ("value" in o && o.type !== "object") return String(o.value);
  if (o.subtype === "null") return "null";
  const p = o.preview;
  if (p && Array.isArray(p.properties) && o.subtype !== "error" && o.subtype !== "node") {
    const props = p.properties.map((x) => {
      const v = x.type === "string" ? JSON.stringify(x.value) : x.value;
      return p.subtype === "array" ? v : `${x.name}: ${v}`;
    });
    if (p.overflow) props.push("…");
    return p.subtype === "array" ? `[${props.join(", ")}]` : `{${props.join(", ")}}`;
  }
  return String(o.description ?? o.className ?? o.type);
}

// consoleText joins a console call's arguments, applying the format
// specifiers of a first string argument (%s %d %i %f %o %O %c) as the
// console does.
export function consoleText(args) {
  if (!Array.isArray(args) || args.length === 0) return "";
  const rest = args.slice();
  if (rest[0].type === "string" && /%[sdifoOc%]/.test(rest[0].value)) {
    const fmt = String(rest.shift().value);
    const head = fmt.replace(/%([sdifoOc%])/g, (m, c) => {
      if (c === "%") return "%";
      if (rest.length === 0) return m;
      const a = rest.shift();
      if (c === "c") return "";
      if (c === "d" || c === "i") return String(parseInt(a.value ?? a.description, 10));
      if (c === "f") return String(parseFloat(a.value ?? a.description));
      return describeArg(a);
    });
    return [head, ...rest.map(describeArg)].join(" ");
  }
  return rest.map(describeArg).join(" ");
}

// exceptionText is Runtime.exceptionThrown's message as DevTools shows it:
// "Uncaught Error: boom\n    at …".
function exceptionText(d) {
  const desc = d.exception && (d.exception.description ?? (d.exception.value !== undefined ? String(d.exception.value) : undefined));
  const text = typeof d.text === "string" ? d.text : "";
  if (desc === undefined) return text;
  return text ? `${text} ${desc}` : desc;
}

function exceptionURL(d) {
  if (typeof d.url === "string" && d.url) return d.url;
  const frames = d.stackTrace && d.stackTrace.callFrames;
  return frames && frames[0] && frames[0].url ? frames[0].url : "";
}

// set adds key to ev when value is a non-empty string, clipped to its limit.
function set(ev, key, value) {
  if (typeof value === "string" && value) ev[key] = clip(value, LIMITS[key]);
  return ev;
}

// traceEventFor maps one CDP event of a tab to a trace event (without seq
// and t), or null when it records nothing.
export function traceEventFor(method, p) {
  p = p || {};
  switch (method) {
    case "Runtime.consoleAPICalled":
      return set({ kind: "console", level: CONSOLE_LEVELS[p.type] || "log" }, "text", consoleText(p.args));
    case "Runtime.exceptionThrown": {
      const d = p.exceptionDetails || {};
      return set(set({ kind: "exception" }, "text", exceptionText(d)), "url", exceptionURL(d));
    }
    case "Page.frameNavigated": {
      const f = p.frame;
      if (!f || f.parentId) return null;
      return set({ kind: "navigation" }, "url", f.url + (f.urlFragment || ""));
    }
    case "Page.javascriptDialogOpening":
      return set(set({ kind: "dialog" }, "level", p.type || "alert"), "text", typeof p.message === "string" ? p.message : "");
    default:
      return null;
  }
}

// requestEventFor maps the end of one of a tab's requests, as
// chrome.webRequest reports it ("completed": onCompleted, "error":
// onErrorOccurred), to a trace event, or null when it went well. Only the
// URL, method, and status or error: the listeners ask for no headers, and
// webRequest never sees bodies. A request the page or a navigation
// cancelled (net::ERR_ABORTED) did not fail.
export function requestEventFor(outcome, d) {
  d = d || {};
  if (outcome === "completed") {
    if (!(d.statusCode >= 400)) return null;
    const ev = set(set({ kind: "request" }, "url", d.url), "method", d.method);
    ev.status = d.statusCode;
    return ev;
  }
  if (outcome !== "error" || d.error === "net::ERR_ABORTED") return null;
  return set(set(set({ kind: "request" }, "url", d.url), "method", d.method), "errorText", d.error || "failed");
}

// actionEvent is the trace event for one of bua's actions that ended:
// its type, how long it ran, and the code it failed with (none when it
// succeeded; level "cancelled" when the daemon cancelled it). Nothing of
// its params: a type action's text never reaches the trace. stack, the
// thrown error's, is kept as text for an internal_error, the code of what
// bua did not expect: its frames are in generated/worker.js, which the
// daemon maps to the modules under src/ (pkg/stackmap).
export function actionEvent(type, durationMs, code, cancelled = false, stack = "") {
  const ev = set({ kind: "action" }, "action", type);
  ev.durationMs = Math.max(0, Math.round(durationMs));
  if (cancelled) ev.level = "cancelled";
  else if (code) ev.code = code;
  if (!cancelled && code === "internal_error") set(ev, "text", stack);
  return ev;
}

// dialogAnswerEvent is the dialog event bua records when it answers a
// dialog: the dialog's type (level) and message (text) as at its opening,
// how it answered, and the action that did (handle_dialog, evaluate, or
// one sent with dialogs).
export function dialogAnswerEvent(dialogType, message, accepted, by) {
  const ev = set(set({ kind: "dialog" }, "level", dialogType || "alert"), "text", message);
  ev.answer = accepted ? "accepted" : "dismissed";
  return set(ev, "action", by);
}

// createTraceStore holds the rings of up to maxTabs tabs (the least
// recently used dropped first).
export function createTraceStore({ maxTabs = TRACE_MAX_TABS, now = Date.now, ring: ringOpts = {} } = {}) {
  const tabs = new Map(); // tabId -> {ring}; insertion order = least recently used first
  // The next seq of a ring dropped for room while its tab lives on, so a
  // new ring for the tab continues its numbering and a reader's sinceSeq
  // stays meaningful (dropped counts what was lost).
  const resume = new Map();

  function entry(tabId) {
    let e = tabs.get(tabId);
    if (e) {
      tabs.delete(tabId); // touch: most recently used last
      tabs.set(tabId, e);
      return e;
    }
    e = { ring: createTraceRing({ ...ringOpts, now, firstSeq: resume.get(tabId) || 1 }) };
    resume.delete(tabId);
    tabs.set(tabId, e);
    while (tabs.size > maxTabs) {
      const [oldId, old] = tabs.entries().next().value;
      tabs.delete(oldId);
      resume.set(oldId, old.ring.nextSeq);
    }
    return e;
  }

  return {
    // cdpEvent records what a CDP event of tabId says, if anything.
    cdpEvent(tabId, method, params) {
      const ev = traceEventFor(method, params);
      return ev ? entry(tabId).ring.push(ev) : null;
    },
    // request records a request's end (requestEventFor), if it failed.
    request(tabId, outcome, details) {
      const ev = requestEventFor(outcome, details);
      return ev ? entry(tabId).ring.push(ev) : null;
    },
    // push records a ready-made event (actionEvent's).
    push(tabId, ev) {
      return entry(tabId).ring.push(ev);
    },
    // read is get_trace's result for tabId (an empty ring for a tab that
    // has none).
    read(tabId, sinceSeq) {
      const e = tabs.get(tabId);
      if (e) return e.ring.read(sinceSeq);
      const next = resume.get(tabId) || 1;
      const since = Number.isInteger(sinceSeq) && sinceSeq > 0 && sinceSeq <= next ? sinceSeq : 1;
      return { events: [], nextSeq: next, dropped: Math.max(0, next - since) };
    },
    // forget drops tabId's ring for good (the tab closed).
    forget(tabId) {
      tabs.delete(tabId);
      resume.delete(tabId);
    },
    has: (tabId) => tabs.has(tabId),
    get tabCount() {
      return tabs.size;
    },
    _tabs: tabs,
  };
}
