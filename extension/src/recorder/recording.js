// One recording's state in the worker (recorder/recorder.js runs it): the
// tabs it follows, its steps in order (a bounded ring the CLI reads with
// record_read, long-polling), the secrets typed so far, and how it ended.
// Pure: no chrome.*, timers injected; node-tested (test/recorder.test.js).

// MAX_STEPS is how many steps a recording holds; older ones are dropped
// (record_read says how many), as a reader that keeps up never sees.
export const MAX_STEPS = 2000;
// MAX_READ is the most steps one record_read answers (the schema's
// maxItems); the next read goes on from its nextSeq.
export const MAX_READ = 500;
// KEEP_ENDED_MS is how long an ended recording stays to be read to its end.
export const KEEP_ENDED_MS = 5 * 60 * 1000;

// urlForms are the ways a secret can show in a URL: as typed, encoded as
// a path segment or a query value, and as a form encodes it (GET form
// fields: every byte but A-Z a-z 0-9 * - . _ escaped, a space as +).
function urlForms(v) {
  const form = Array.from(new TextEncoder().encode(v), (b) => {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9*\-._]/.test(c)) return c;
    return c === " " ? "+" : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }).join("");
  const out = new Set([v, encodeURIComponent(v), encodeURIComponent(v).replace(/%20/g, "+"), form]);
  return [...out].filter((f) => f);
}

export class Recording {
  // tabId is the tab it started on, which names it; url and title are
  // that tab's then.
  constructor(tabId, { url = "", title = "", now = Date.now() } = {}) {
    this.tabId = tabId;
    this.url = url;
    this.title = title;
    this.startedAt = now;
    this.tabs = new Set([tabId]); // the tabs it follows
    this.urls = new Map([[tabId, url]]); // tab -> its URL now (recorder.js follows each commit)
    this.lastTab = tabId; // the tab the last step was on
    this.steps = []; // published steps, oldest first
    this.nextSeq = 1;
    this.queue = []; // steps in the making, in the order they began: {done, step}
    this.secrets = new Map(); // text typed into a password field -> its number
    this.ended = null; // {reason, at}
    this.waiters = new Set();
  }

  get count() {
    return this.nextSeq - 1;
  }

  // add takes a step in the making (a promise of a step, or of null for
  // none) and publishes it once it and every step begun before it are
  // made, so the steps keep the order of the person's input however long
  // each one's element takes to describe.
  add(work) {
    const slot = { done: false, step: null };
    this.queue.push(slot);
    const settle = (step) => {
      slot.done = true;
      slot.step = step || null;
      while (this.queue.length && this.queue[0].done) {
        const { step: s } = this.queue.shift();
        if (s) this.publish(s);
      }
      this.wake(); // settled() waits for steps that came to nothing too
    };
    return Promise.resolve(work).then(settle, (e) => {
      console.warn("[bua] a recorded step was lost", e);
      settle(null);
    });
  }

  // publish gives step its seq and wakes the readers.
  publish(step) {
    if (this.ended) return;
    const s = { seq: this.nextSeq++, ...step };
    if (s.action || s.assertTitle !== undefined || s.assertUrl !== undefined) this.lastTab = s.tabId;
    this.steps.push(s);
    if (this.steps.length > MAX_STEPS) this.steps.splice(0, this.steps.length - MAX_STEPS);
    this.wake();
  }

  // settled resolves once every step begun so far is published.
  settled() {
    const last = this.queue[this.queue.length - 1];
    if (!last) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (last.done ? resolve() : this.waiters.add(check));
      check();
    });
  }

  // end ends the recording with reason (the first reason wins).
  end(reason, now = Date.now()) {
    if (!this.ended) this.ended = { reason, at: now };
    this.wake();
  }

  wake() {
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const fn of ws) fn();
  }

  // read is record_read's answer from sinceSeq on.
  read(sinceSeq = 0) {
    const first = this.steps.length ? this.steps[0].seq : this.nextSeq;
    const from = Math.max(sinceSeq, 1);
    const dropped = Math.max(0, first - from);
    const steps = this.steps.filter((s) => s.seq >= from).slice(0, MAX_READ);
    const nextSeq = steps.length ? steps[steps.length - 1].seq + 1 : Math.max(from, first);
    const out = { steps, nextSeq, dropped, ended: false };
    if (this.ended && nextSeq >= this.nextSeq && this.queue.length === 0) {
      out.ended = true;
      out.reason = this.ended.reason;
    }
    return out;
  }

  // wait resolves once there is a step at or after sinceSeq, or the
  // recording ended, or after ms, or when signal aborts.
  wait(sinceSeq, ms, timers = globalThis, signal = undefined) {
    return new Promise((resolve) => {
      const ready = () => this.nextSeq > Math.max(sinceSeq, 1) || (this.ended && this.queue.length === 0);
      let timer = null;
      const done = () => {
        this.waiters.delete(check);
        if (timer !== null) timers.clearTimeout(timer);
        if (signal) signal.removeEventListener("abort", done);
        resolve();
      };
      const check = () => (ready() ? done() : this.waiters.add(check));
      timer = timers.setTimeout(done, ms);
      if (signal) signal.addEventListener("abort", done);
      check();
    });
  }

  // secret is the number of the secret whose text is value, a new one when
  // new is true (text typed into a password field), else 0 for text that
  // is no secret's.
  secret(value, isNew) {
    if (!value) return 0;
    if (this.secrets.has(value)) return this.secrets.get(value);
    if (!isNew) return 0;
    const n = this.secrets.size + 1;
    this.secrets.set(value, n);
    return n;
  }

  // mask replaces every secret's text in url with ***: {url, masked}.
  mask(url) {
    let out = String(url || "");
    for (const v of this.secrets.keys()) for (const f of urlForms(v)) out = out.split(f).join("***");
    return { url: out, masked: out !== String(url || "") };
  }

  // view is the recording as the popup shows it.
  view() {
    return { tabId: this.tabId, tabs: [...this.tabs], lastTab: this.lastTab, url: this.mask(this.url).url, title: this.title, steps: this.count, startedAt: this.startedAt };
  }

  // summary is record_start's and record_stop's answer.
  summary() {
    const out = { ok: true, tabId: this.tabId, url: this.mask(this.url).url, steps: this.count };
    if (this.title) out.title = this.title;
    if (this.ended) {
      out.ended = true;
      out.reason = this.ended.reason;
    }
    return out;
  }
}
