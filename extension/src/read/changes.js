// What changed since the tab's last read (extract changes: true, feature
// extract_changes): the elements added, with uids that continue the tab's
// numbering, and the uids of the elements gone; an element still there
// keeps its uid. A full extract still numbers e0, e1, ... (docs/protocol.md).
//
// Identity is the node itself, kept in the page between reads without
// the page seeing it: every read (a full extract, a changes read) returns
// its array of the elements it listed as a remote object in the
// KNOWN_GROUP object group, which only the debugger holds (no global, no
// attribute, no expando the page could find). The next changes read runs
// on that array (Runtime.callFunctionOn of page/changes.js), so it tells
// old nodes from new ones with a Map lookup, and only the new ones are
// described and come back by deep serialization. The cost is the page's
// walk for elements (page/elements.js), not one serialized node per
// element (docs/extension.md §Changes measures it). When that array is
// gone (its document's JavaScript context was replaced, or a frame is
// new), the elements are matched by backendNodeId within their debugger
// session.
//
// The tab's ledger (its TabSession's lastRead, sessions/tab-session.js)
// is {loaderId, map, next, known}: map the uid -> {session, id} cache,
// next the first free uid number, known per session (null: the tab's own)
// {objectId, uids}, uids[i] the uid of the array's i-th element, or null
// for an element listed past maxElements, known but given no uid.

import { BridgeError, ErrorCodes, withPageStack } from "../core/errors.js";
import { CdpError, sessionSend } from "../core/cdp.js";
import { CHANGES } from "../generated/page.js";

// KNOWN_GROUP holds each session's last-read element array. A full
// extract releases the group first; a changes read releases the array
// it replaced.
export const KNOWN_GROUP = "bua-known";

// STATE_FIELDS are the optional element fields copied from the page's read
// into the result (the schema's result.element).
const STATE_FIELDS = ["checked", "selected", "expanded", "disabled"];

// toElement is the result's element for the page's item el under uid,
// with parent the uid of the select it belongs to (or undefined).
export function toElement(el, uid, parent) {
  const out = { uid, role: el.role };
  if (el.name) out.name = el.name;
  if (el.value) out.value = el.value;
  out.visible = el.visible;
  for (const f of STATE_FIELDS) if (el[f] !== undefined) out[f] = el[f];
  if (parent) out.parent = parent;
  if (el.frame) out.frame = el.frame;
  return out;
}

// knownAfterExtract is the known map a full extract leaves: for each
// session it read ({session, objectId, base, kept}), its array's first
// kept elements are e{base}, e{base+1}, ...; the rest have no uid.
export function knownAfterExtract(reads) {
  const known = new Map();
  for (const r of reads) {
    if (!r.objectId) continue;
    const uids = [];
    for (let i = 0; i < r.kept; i++) uids.push(`e${r.base + i}`);
    known.set(r.session, { objectId: r.objectId, uids });
  }
  return known;
}

// releaseKnown frees the KNOWN_GROUP arrays of the tab's sessions, before
// a full extract replaces them. Sent without waiting: a session runs its
// commands in order, so the release lands before the read that follows.
export function releaseKnown(ctx) {
  const sessions = [null, ...(ctx.frames ? ctx.frames().map((f) => f.sessionId) : [])];
  for (const s of sessions) sessionSend(ctx, s)("Runtime.releaseObjectGroup", { objectGroup: KNOWN_GROUP }).catch(() => {});
}

// nodeIdsOf returns the backendNodeIds of the n nodes a page read
// returned by deep serialization after its JSON (parts[1..n]), or throws
// internal_error saying which read (what) got no node.
export function nodeIdsOf(parts, n, what) {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const node = parts[i + 1];
    const id = node && node.type === "node" && node.value && node.value.backendNodeId;
    if (!Number.isInteger(id)) throw new BridgeError(ErrorCodes.INTERNAL_ERROR, `${what} got no backend node for element ${i} (${node && node.type})`);
    ids.push(id);
  }
  return ids;
}

// parseRead turns a changes read's deep-serialized array into {url, title,
// items, from, ids}: ids[k] the backendNodeId of items[k].
export function parseRead(deep) {
  const parts = (deep && deep.value) || [];
  const head = parts[0];
  if (!head || head.type !== "string") throw new BridgeError(ErrorCodes.INTERNAL_ERROR, "the changes read got nothing from the page");
  const read = JSON.parse(head.value);
  read.ids = nodeIdsOf(parts, read.items.length, "the changes read");
  return read;
}

// mergeChanges numbers a changes read. last is the ledger when it is of
// the same document (else null: every element is new, and every uid of
// lastUids is gone). reads are the sessions' reads in order, the tab's
// own first: {session, items, ids, from, prev} where prev is the known
// entry the read ran on (null when it ran on none). Elements still
// listed keep their uids; a new element whose node had a uid in the same
// session (matched by backendNodeId) keeps it too; the others get e{next},
// e{next+1}, ... Returns {added, removed, map, known, next}: known holds
// each session's uids aligned with its new array (objectIds are the
// caller's).
export function mergeChanges(last, reads, next, lastUids = []) {
  const map = new Map();
  const known = new Map();
  const added = [];
  const byNode = new Map();
  if (last) for (const [uid, n] of last.map) byNode.set(`${n.session || ""}|${n.id}`, uid);
  for (const r of reads) {
    const session = r.session || null;
    const prevUids = r.prev ? r.prev.uids : [];
    const uids = new Array(r.from.length).fill(null);
    let k = 0;
    for (let j = 0; j < r.from.length; j++) {
      const f = r.from[j];
      if (f >= 0) {
        const uid = prevUids[f] || null;
        if (uid && last && last.map.has(uid) && !map.has(uid)) {
          map.set(uid, last.map.get(uid));
          uids[j] = uid;
        }
        continue;
      }
      if (f === -2) continue;
      const item = r.items[k];
      const id = r.ids[k];
      k++;
      const old = byNode.get(`${session || ""}|${id}`);
      if (old && !map.has(old)) {
        map.set(old, last.map.get(old));
        uids[j] = old;
        continue;
      }
      const uid = `e${next++}`;
      map.set(uid, { session, id });
      uids[j] = uid;
      const parent = Number.isInteger(item.parent) && item.parent < j ? uids[item.parent] || undefined : undefined;
      added.push(toElement(item, uid, parent));
    }
    known.set(session, { uids });
  }
  const before = last ? [...last.map.keys()] : lastUids;
  const removed = before.filter((uid) => !map.has(uid));
  return { added, removed, map, known, next };
}

const SERIALIZE = Object.freeze({ serialization: "deep", maxDepth: 1 });

// readSession runs the changes read in one session: on its last array
// (prev.objectId) when there is one, else afresh. An array the page no
// longer has (its context was replaced) is read afresh too, prev null.
async function readSession(ctx, session, prev, opts) {
  const send = sessionSend(ctx, session);
  let r = null;
  if (prev && prev.objectId) {
    try {
      r = await send("Runtime.callFunctionOn", {
        objectId: prev.objectId,
        functionDeclaration: CHANGES,
        arguments: [{ value: opts }],
        objectGroup: KNOWN_GROUP,
        serializationOptions: SERIALIZE,
      });
    } catch (e) {
      if (!(e instanceof CdpError)) throw e;
      prev = null;
    }
  } else prev = null;
  if (!r) {
    r = await send("Runtime.evaluate", {
      expression: `(${CHANGES}).call(null, ${JSON.stringify(opts)})`,
      objectGroup: KNOWN_GROUP,
      serializationOptions: SERIALIZE,
    });
  }
  if (r.exceptionDetails) {
    const d = (r.exceptionDetails.exception && r.exceptionDetails.exception.description) || r.exceptionDetails.text || "";
    throw withPageStack(new BridgeError(ErrorCodes.INTERNAL_ERROR, `the changes read failed in the page: ${String(d).split("\n")[0]}`), d);
  }
  const read = parseRead(r.result.deepSerializedValue);
  return { session, prev, objectId: r.result.objectId, ...read };
}

// READS_TRIED bounds the reads of a changes read whose document changed
// while it ran.
const READS_TRIED = 3;

// readChanges is extract with changes: true: {url, title, changes: {added,
// removed}}, and the ledger records the set it read. max caps the new
// elements described in one read (maxElements); new ones past it are
// known without a uid, as a full extract's past maxElements are.
export async function readChanges(ctx, max) {
  for (let attempt = 1; ; attempt++) {
    const { frameTree } = await ctx.send("Page.getFrameTree");
    const loaderId = frameTree.frame.loaderId;
    const ledger = ctx.lastRead ? ctx.lastRead() : null;
    const same = ledger && ledger.loaderId === loaderId ? ledger : null;
    const frames = ctx.frames ? ctx.frames() : [];
    const prevOf = (s) => (same && same.known ? same.known.get(s) || null : null);
    let main;
    try {
      main = await readSession(ctx, null, prevOf(null), { max });
    } catch (e) {
      // A document replaced under the read ("Execution context was
      // destroyed") is read again.
      if (!(e instanceof CdpError) || attempt >= READS_TRIED) throw e;
      await ctx.sleep(50);
      continue;
    }
    const reads = [main];
    const kids = await Promise.allSettled(frames.map((f) => readSession(ctx, f.sessionId, prevOf(f.sessionId), { max, frame: true })));
    // A frame that went away meanwhile adds nothing: its uids are gone.
    for (const k of kids) if (k.status === "fulfilled") reads.push(k.value);
    const after = await ctx.send("Page.getFrameTree");
    if (after.frameTree.frame.loaderId !== loaderId && attempt < READS_TRIED) continue;
    const next = ledger ? ledger.next : 0;
    const lastUids = ledger && !same ? [...ledger.map.keys()] : [];
    const merged = mergeChanges(same, reads, next, lastUids);
    for (const r of reads) merged.known.get(r.session).objectId = r.objectId;
    // The arrays these reads ran on are replaced now.
    for (const r of reads) {
      if (r.prev && r.prev.objectId) sessionSend(ctx, r.session)("Runtime.releaseObject", { objectId: r.prev.objectId }).catch(() => {});
    }
    ctx.storeUids(merged.map, after.frameTree.frame.loaderId, { next: merged.next, known: merged.known });
    return { url: main.url, title: main.title, changes: { added: merged.added, removed: merged.removed } };
  }
}
