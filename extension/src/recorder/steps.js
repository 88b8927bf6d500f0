// What a recorded input or navigation becomes (the schema's recordedStep):
// the page side's messages (page/recorder.js) and chrome.webNavigation's
// commits, as steps. Pure: node-tested (test/recorder.test.js).

// TYPED_TRANSITIONS are the webNavigation transition types of a
// navigation the person started from the browser's own UI (the address
// bar, a bookmark, the start page): a navigate step. Any other (a link, a
// form, a script's redirect) is the page's doing, a landed step.
const TYPED_TRANSITIONS = new Set(["typed", "auto_bookmark", "generated", "keyword", "keyword_generated", "start_page"]);

// actionOf is the action a page message stands for, without its target:
// click, type (text set by the caller, or left out for a secret),
// select_option, upload, press_key, wait_for. null for a message that is
// no step (see).
export function actionOf(msg) {
  switch (msg.k) {
    case "click":
      return Number.isInteger(msg.count) && msg.count > 1 ? { type: "click", clickCount: Math.min(msg.count, 3) } : { type: "click" };
    case "type":
      return { type: "type", clear: true };
    case "select":
      return { type: "select_option", value: (msg.values || []).map(String) };
    case "upload":
      return { type: "upload", files: (msg.files || []).map(placeholder) };
    case "key":
      return { type: "press_key", key: String(msg.key) };
    case "assert":
      return { type: "wait_for", text: String(msg.text) };
    default:
      return null;
  }
}

// placeholder is the path an upload step gets for a file the person
// chose: its name, which a flow reads beside itself (the runner resolves a
// relative path against the flow's folder). A page never learns where a
// chosen file is.
export function placeholder(name) {
  const base = String(name || "file").replace(/[\\/]/g, "_");
  return base === "." || base === ".." ? "file" : base;
}

// uploadComment says what an upload step's placeholder paths stand for.
export function uploadComment(files) {
  if (!files.length) return "the person cleared the file input";
  return `the person chose ${files.join(", ")}: put ${files.length === 1 ? "that file" : "those files"} beside this flow, or write ${files.length === 1 ? "its path" : "their paths"} here`;
}

// historyMove says whether a back/forward navigation to url went back or
// forward in hist ({list, at}: the tab's URLs as the recording followed
// them, and where it is), and moves hist there: "go_back", "go_forward",
// or null when url is on neither side.
export function historyMove(hist, url) {
  if (hist.at > 0 && hist.list[hist.at - 1] === url) {
    hist.at--;
    return "go_back";
  }
  if (hist.at + 1 < hist.list.length && hist.list[hist.at + 1] === url) {
    hist.at++;
    return "go_forward";
  }
  return null;
}

// historyPush records a navigation to url that was no back or forward:
// the entries after the current one go, as a browser's history drops them.
export function historyPush(hist, url) {
  if (hist.list[hist.at] === url) return;
  hist.list = hist.list.slice(0, hist.at + 1);
  hist.list.push(url);
  hist.at = hist.list.length - 1;
  if (hist.list.length > 50) {
    hist.list.shift();
    hist.at--;
  }
}

// navStep is the step for a main-frame navigation webNavigation reported
// (details: onCommitted's, or onHistoryStateUpdated's and
// onReferenceFragmentUpdated's for a same-document one) on a tab whose
// history the recording follows (hist): navigate for one the person
// typed, reload, go_back or go_forward, else landed (the page went to
// url after the person's last input there).
export function navStep(details, hist) {
  const url = String(details.url || "");
  const quals = details.transitionQualifiers || [];
  if (quals.includes("forward_back")) {
    const move = historyMove(hist, url);
    if (move) return { action: { type: move } };
    historyPush(hist, url);
    return { action: { type: "navigate", url } };
  }
  if (details.transitionType === "reload" && hist.list[hist.at] === url) return { action: { type: "reload" } };
  historyPush(hist, url);
  if (TYPED_TRANSITIONS.has(details.transitionType) || quals.includes("from_address_bar")) return { action: { type: "navigate", url } };
  return { landed: true };
}

// describeStep is one line about a step, as the popup and bua record's
// progress show it: "click button "Sign in"", "type into textbox "Email"".
export function describeStep(step) {
  const a = step.action;
  if (!a) return step.assertTitle !== undefined ? `check the title is ${JSON.stringify(step.assertTitle)}` : step.landed ? `the page went to ${step.url}` : "";
  const loc = step.target && step.target.locators && step.target.locators[0];
  const what = !loc ? "" : loc.by === "role" ? ` ${loc.role}${loc.name ? ` ${JSON.stringify(loc.name)}` : ""}` : ` ${loc.selector || loc.label || loc.text || ""}`;
  return `${a.type}${what}`;
}
