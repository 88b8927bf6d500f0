import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPairing, claimURL, normalizeCode, claimCode, DEFAULT_URL } from "../src/transport/pairing.js";
import { createFakeApi } from "./helpers/fake-chrome.js";

test("a managed pairing.json wins over the stored user config", async () => {
  const api = createFakeApi({ files: { "pairing.json": { kind: "managed", url: "ws://127.0.0.1:5/ws/browser", token: "t", blocklist: ["b.test", 3] } } });
  await api.storage.set({ bridge_config: { url: "ws://127.0.0.1:6/ws/browser", token: "u" } });
  assert.deepEqual(await loadPairing(api), { kind: "managed", managed: true, url: "ws://127.0.0.1:5/ws/browser", token: "t", blocklist: ["b.test"] });
});

test("without pairing.json the stored config, then the default, is used", async () => {
  const api = createFakeApi();
  assert.equal((await loadPairing(api)).url, DEFAULT_URL);
  assert.equal((await loadPairing(api)).managed, false);
  await api.storage.set({ bridge_config: { url: "ws://127.0.0.1:6/ws/browser", token: "u" } });
  const p = await loadPairing(api);
  assert.deepEqual([p.kind, p.url, p.token], ["user", "ws://127.0.0.1:6/ws/browser", "u"]);
});

test("codes and claim URLs normalise", () => {
  assert.equal(normalizeCode(" abcd2345 "), "ABCD-2345");
  assert.equal(normalizeCode("ABCD-2345"), "ABCD-2345");
  assert.equal(normalizeCode("ABC"), null);
  assert.equal(claimURL("ws://127.0.0.1:48123/ws/browser"), "http://127.0.0.1:48123/pair/claim");
  assert.equal(claimURL("wss://h.example:9/ws/browser?x=1"), "https://h.example:9/pair/claim");
});

test("claimCode stores the returned token and URL, and reports refusals", async () => {
  const api = createFakeApi();
  const sent = [];
  api.fetch = async (url, init) => {
    sent.push([url, JSON.parse(init.body)]);
    if (JSON.parse(init.body).code === "ABCD-2345") {
      return { ok: true, status: 200, json: async () => ({ token: "tok", url: "ws://127.0.0.1:7/ws/browser", extensionId: "x" }) };
    }
    return { ok: false, status: 404, json: async () => ({ error: { code: "invalid_action", message: "unknown or expired code" } }) };
  };
  assert.deepEqual(await claimCode(api, "ws://127.0.0.1:7/ws/browser", "abcd-2345"), { ok: true, url: "ws://127.0.0.1:7/ws/browser" });
  assert.deepEqual(sent[0], ["http://127.0.0.1:7/pair/claim", { code: "ABCD-2345" }]);
  assert.deepEqual((await api.storage.get("bridge_config")).bridge_config, { url: "ws://127.0.0.1:7/ws/browser", token: "tok" });
  const bad = await claimCode(api, "ws://127.0.0.1:7/ws/browser", "WXYZ-2345");
  assert.equal(bad.ok, false);
  assert.match(bad.message, /unknown or expired code/);
  assert.equal((await claimCode(api, DEFAULT_URL, "x")).ok, false);
});
