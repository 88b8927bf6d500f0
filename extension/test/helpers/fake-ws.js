// A fake WebSocket for ws-client's tests, driven by the test as the daemon
// would drive a real one. Not a test file itself.

export class FakeWS {
  static all = []; // every socket constructed, oldest first
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeWS.all.push(this);
  }
  send(s) {
    this.sent.push(JSON.parse(s));
  }
  close(code = 1000) {
    this.readyState = 3;
    this.closedWith = code;
  }
  // helpers driven by the test, standing in for the daemon
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  recv(obj) {
    this.onmessage?.({ data: typeof obj === "string" ? obj : JSON.stringify(obj) });
  }
  drop(code, reason = "") {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}
