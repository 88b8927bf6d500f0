//go:build linux

package person

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bua-dev/bua/e2e/harness"
)

// pairing is what `bua pair --json` prints: the user token and the URL
// the extension dials.
type pairing struct {
	Token string `json:"token"`
	URL   string `json:"url"`
}

func pairInfo(t *testing.T) pairing {
	t.Helper()
	r := bua(t, "pair", "--json")
	mustOK(t, "pair", r)
	var p pairing
	if err := json.Unmarshal([]byte(r.Stdout), &p); err != nil || p.Token == "" || !strings.HasPrefix(p.URL, "ws://127.0.0.1:") {
		t.Fatalf("bua pair --json: %v\n%s", err, r.Stdout)
	}
	return p
}

// saveInOptions types url and token into the options page's manual
// pairing fields, presses Save, and waits for want (afterPress).
func saveInOptions(t *testing.T, p *page, url, token, want string) {
	t.Helper()
	afterPress(t, p, url, want, func() {
		p.fill("#url", url)
		p.fill("#token", token)
		p.click("#save")
	})
}

// afterPress runs press (typing and a click on the options page) and
// waits up to 15 s until the page shows want as its outcome: the first
// state the worker published (chrome.storage.local connectionState, which
// the page follows) after it started connecting to url. States published
// before, such as a reject from whatever listens on the extension's
// default port, do not count.
func afterPress(t *testing.T, p *page, url, want string, press func()) {
	t.Helper()
	p.eval(`(() => {
		window.__states = [];
		chrome.storage.onChanged.addListener((ch, area) => {
			if (area === "local" && ch.connectionState) window.__states.push(ch.connectionState.newValue || {});
		});
		return true;
	})()`)
	press()
	outcome := `(() => {
		const i = window.__states.findIndex((s) => s.state === "connecting" && s.url === ` + jsString(url) + `);
		const next = i < 0 ? undefined : window.__states.slice(i + 1).find((s) => s.state !== "connecting");
		return next ? next.state : "";
	})()`
	var got string
	if !poll(15*time.Second, func() bool { got = p.str(outcome); return got != "" }) {
		t.Fatalf("options page: no outcome within 15 s; states %v; #msg %q", p.eval(`window.__states`), p.str(`document.querySelector("#msg").textContent`))
	}
	if got != want {
		t.Fatalf("options page: state %q (%s), want %s", got, p.str(`document.querySelector("#reason").textContent`), want)
	}
	p.waitTrue(5*time.Second, `document.querySelector("#state").dataset.state === `+jsString(want))
}

// pairThroughOptions pairs the person's extension with the right token
// through the options page (opened in a window of its own, closed after)
// and waits until the daemon lists the user connection.
func pairThroughOptions(t *testing.T, c *harness.CDP) {
	t.Helper()
	pi := pairInfo(t)
	p := openOptions(t, c)
	saveInOptions(t, p, pi.URL, pi.Token, "connected")
	waitUserConnected(t)
}

// openOptions opens the options page in a window of its own, as a
// person opens it from chrome://extensions, and waits until it has filled
// #url from the stored pairing (the field has a placeholder, no value,
// until then), so typing does not race the page filling its fields.
func openOptions(t *testing.T, c *harness.CDP) *page {
	t.Helper()
	p := newPage(t, c, optionsURL(t), map[string]any{"newWindow": true})
	p.waitTrue(10*time.Second, `Boolean(document.querySelector("#url") && document.querySelector("#url").value)`)
	return p
}

// waitUserConnected waits until `bua status` lists the user extension.
func waitUserConnected(t *testing.T) time.Time {
	t.Helper()
	var since time.Time
	if !poll(10*time.Second, func() bool { since = status(t).userSince(); return !since.IsZero() }) {
		t.Fatalf("bua status lists no user connection: %+v", status(t))
	}
	return since
}

// ensurePaired pairs the person's extension unless it is connected
// already: each test can run alone (-run), whatever ran before it.
func ensurePaired(t *testing.T, c *harness.CDP) {
	t.Helper()
	if status(t).userSince().IsZero() {
		pairThroughOptions(t, c)
	}
}

// TestPairing pairs the person's Chrome as README §Use your own Chrome
// tells a person to: `bua pair` prints the token and the daemon's URL, and
// the person types them into the extension's options page and presses
// Save. A wrong token first: the page shows "rejected" and why, in the
// daemon's words. Then the right one: the page shows "connected", and
// `bua status` lists the user connection and no managed browser.
func TestPairing(t *testing.T) {
	c := devtools(t)
	pi := pairInfo(t)
	p := openOptions(t, c)

	wrong := strings.Repeat("0", len(pi.Token))
	saveInOptions(t, p, pi.URL, wrong, "rejected")
	if reason := p.str(`document.querySelector("#reason").textContent`); !strings.Contains(reason, "wrong pairing token") || !strings.Contains(reason, "bua pair") {
		t.Errorf("#reason after a wrong token = %q: want the daemon's reason, saying the token is wrong and to run `bua pair`", reason)
	}
	if st := status(t); !st.userSince().IsZero() {
		t.Errorf("bua status lists a user connection after a wrong token: %+v", st)
	}

	t0 := time.Now()
	saveInOptions(t, p, pi.URL, pi.Token, "connected")
	took := time.Since(t0)
	waitUserConnected(t)
	st := status(t)
	if !st.UserPaired || st.Managed.Running {
		t.Errorf("bua status: userPaired %v, managed running %v: want the user pairing and no managed browser", st.UserPaired, st.Managed.Running)
	}
	r := bua(t, "status")
	mustOK(t, "status", r)
	if !strings.Contains(r.Stdout, "user") {
		t.Errorf("bua status does not show the user connection:\n%s", r.Stdout)
	}
	t.Logf("typed the right token and pressed Save: connected in %s", took.Round(time.Millisecond))
}

// TestPairingCode pairs with the short one-time code instead of the
// token, as `bua pair --code` tells the person to: a Chrome holding a
// mistyped token is rejected; the person types the code into #code and
// presses Pair (#claim), and the page trades it with the daemon for the
// token and connects.
func TestPairingCode(t *testing.T) {
	c := devtools(t)
	pi := pairInfo(t)
	p := openOptions(t, c)
	saveInOptions(t, p, pi.URL, strings.Repeat("1", len(pi.Token)), "rejected")

	r := bua(t, "pair", "--code", "--json")
	mustOK(t, "pair --code", r)
	var pc struct{ Code, URL string }
	if err := json.Unmarshal([]byte(r.Stdout), &pc); err != nil || pc.Code == "" || pc.URL != pi.URL {
		t.Fatalf("bua pair --code --json: %v\n%s", err, r.Stdout)
	}
	afterPress(t, p, pi.URL, "connected", func() {
		p.fill("#code", pc.Code)
		p.click("#claim")
	})
	waitUserConnected(t)
}
