// Downloads an input starts: click and press_key with download: true wait,
// through chrome.downloads, for the download the input started to finish,
// and answer where the file went (the schema's result.download). The
// daemon, which shares the machine with the browser, reads the file and
// adds its sha256; the extension cannot read files.

import { BridgeError, ErrorCodes } from "../core/errors.js";
import { REASONS } from "../generated/protocol.js";
import { withDeadline } from "../core/cdp.js";

// withDownload runs act (the input and its settle) and, when
// action.download is set, waits for the first download the browser starts
// after the input began, until it completes or is interrupted, within the
// action's budget. Without download: true it is act itself. The listeners
// are added before the input, so a download that starts and ends within
// it is not missed.
export async function withDownload(ctx, action, what, act) {
  if (action.download !== true) return act();
  if (!ctx.downloads) {
    throw new BridgeError(ErrorCodes.INTERNAL_ERROR, "this extension build cannot watch downloads (no chrome.downloads)");
  }
  const watch = watchDownload(ctx.downloads, Date.now());
  try {
    const result = await act();
    const wait = Math.max(1, ctx.budget.inner());
    const item = await withDeadline(watch.finished, wait, `the download the ${what} was to start`, ctx.timers || globalThis, ctx.budget.signal).catch((e) => {
      if (e instanceof BridgeError && e.code === ErrorCodes.TIMEOUT) throw watch.timeout(what, wait);
      throw e;
    });
    return { ...result, download: describe(item) };
  } finally {
    watch.off();
  }
}

// describe is result.download's download object from a DownloadItem.
export function describe(item) {
  const path = String(item.filename || "");
  const out = {
    path,
    filename: path.split(/[\\/]/).pop(),
    size: Number(item.fileSize >= 0 ? item.fileSize : item.bytesReceived) || 0,
    mime: String(item.mime || ""),
  };
  const url = item.finalUrl || item.url;
  if (url) out.url = String(url);
  return out;
}

// watchDownload follows the first download created at or after `since`
// (epoch ms; DownloadItem.startTime is an ISO string): `finished` resolves
// with its DownloadItem once complete, or rejects with internal_error,
// reason download_interrupted, carrying Chrome's reason. Later downloads
// are ignored: one input, one download.
export function watchDownload(api, since) {
  let id = null;
  let item = null;
  let settle;
  const finished = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  finished.catch(() => {}); // a rejection nobody awaits yet is not unhandled
  const done = async () => {
    const [found] = await api.search({ id });
    settle.resolve(found || item);
  };
  const interrupted = (reason) => {
    const name = item && item.filename ? item.filename.split(/[\\/]/).pop() : item && item.url ? item.url : `download ${id}`;
    settle.reject(
      new BridgeError(
        ErrorCodes.INTERNAL_ERROR,
        `the download of ${name} was interrupted: ${reason || "no reason given"} (Chrome's reason)`,
        REASONS.DOWNLOAD_INTERRUPTED,
      ),
    );
  };
  const onCreated = (it) => {
    if (id !== null) return;
    const started = Date.parse(it.startTime);
    if (Number.isFinite(started) && started < since - 1000) return; // an earlier download still in progress
    id = it.id;
    item = it;
    if (it.state === "complete") done().catch((e) => settle.reject(e));
    else if (it.state === "interrupted") interrupted(it.error);
  };
  const onChanged = (delta) => {
    if (delta.id !== id) return;
    if (delta.filename && delta.filename.current) item = { ...item, filename: delta.filename.current };
    const state = delta.state && delta.state.current;
    if (state === "complete") done().catch((e) => settle.reject(e));
    else if (state === "interrupted") interrupted(delta.error && delta.error.current);
  };
  api.onCreated.addListener(onCreated);
  api.onChanged.addListener(onChanged);
  return {
    finished,
    off() {
      api.onCreated.removeListener(onCreated);
      api.onChanged.removeListener(onChanged);
    },
    // timeout is the error for a wait that ran out: no download started,
    // or it did not finish in time.
    timeout(what, ms) {
      if (id === null) {
        return new BridgeError(ErrorCodes.TIMEOUT, `the ${what} started no download within ${ms} ms (download: true waits for one)`);
      }
      const name = item && item.filename ? item.filename : item.url;
      return new BridgeError(ErrorCodes.TIMEOUT, `the download of ${name} did not finish within ${ms} ms`);
    },
  };
}
