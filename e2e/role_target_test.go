package e2e

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Role targets, {role, name, nth}, in real Chromium with the real
// extension: resolved through the page's accessibility tree, with no
// extract first. The fixture is testdata/sites/roles.html.

// roleAction is an action of typ on tab with a role target; extra adds
// params (name, nth, text, timeoutMs).
func roleAction(typ string, tab int, role string, extra map[string]any) map[string]any {
	a := map[string]any{"type": typ, "tabId": tab, "role": role}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

func clicks(t *testing.T, tab int) []any {
	t.Helper()
	v, _ := evaluate(t, tab, "return window.clicks").([]any)
	return v
}

func TestRoleTarget_ClickNth(t *testing.T) {
	tab := openTab(t, "roles.html")

	// Two buttons named Save: without nth the action is refused, naming
	// both, and nothing is clicked.
	e := wantError(t, roleAction("click", tab, "button", map[string]any{"name": "Save"}), "invalid_action")
	wantContains(t, "ambiguity message", e.Message, `role button named "Save" matches 2 elements`)
	wantContains(t, "ambiguity message", e.Message, `nth 0: button "Save" <button#save-top.primary>`)
	wantContains(t, "ambiguity message", e.Message, `nth 1: button "Save" <button#save-bottom>`)
	if got := clicks(t, tab); len(got) != 0 {
		t.Fatalf("an ambiguous target clicked %v", got)
	}

	mustRequest(t, roleAction("click", tab, "button", map[string]any{"name": "Save", "nth": 1}), nil)
	mustRequest(t, roleAction("click", tab, "button", map[string]any{"name": "Save", "nth": 0}), nil)
	if got, want := clicks(t, tab), []any{"save-bottom", "save-top"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %v, want %v", got, want)
	}

	e = wantError(t, roleAction("click", tab, "button", map[string]any{"name": "Save", "nth": 2}), "element_not_found")
	wantContains(t, "nth past the end", e.Message, "matches 2 elements, so there is no nth 2")
}

// Hidden elements never match (Playwright's getByRole default): the page
// has three buttons named "Sign in", one aria-hidden and one display:none,
// so the name is unique.
func TestRoleTarget_HiddenDoNotCount(t *testing.T) {
	tab := openTab(t, "roles.html")
	mustRequest(t, roleAction("click", tab, "button", map[string]any{"name": "Sign in"}), nil)
	if got, want := clicks(t, tab), []any{"signin"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %v, want %v", got, want)
	}
}

func TestRoleTarget_RegexAndWhitespace(t *testing.T) {
	tab := openTab(t, "roles.html")
	mustRequest(t, roleAction("click", tab, "link", map[string]any{"name": `/docs \(v2/i`}), nil)
	// aria-label="  Help   me " is the name "Help me", as a person reads it.
	mustRequest(t, roleAction("click", tab, "button", map[string]any{"name": "Help me"}), nil)
	if got, want := clicks(t, tab), []any{"docs", "padded"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %v, want %v", got, want)
	}
	if h := evaluate(t, tab, "return location.hash"); h != "#docs-v2" {
		t.Fatalf("location.hash = %v after clicking the docs link", h)
	}
	e := wantError(t, roleAction("click", tab, "link", map[string]any{"name": "/(/"}), "invalid_action")
	wantContains(t, "bad regex", e.Message, "not a valid regular expression")
}

// No match is element_not_found at once (not after the 30 s budget), and
// the message names what the role does have.
func TestRoleTarget_MissingFailsFast(t *testing.T) {
	tab := openTab(t, "roles.html")
	start := time.Now()
	e := wantError(t, roleAction("click", tab, "button", map[string]any{"name": "Delete account"}), "element_not_found")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a missing role target took %v to fail, want well under 5 s", d)
	}
	wantContains(t, "no match", e.Message, `no element with role button named "Delete account" in the page`)
	wantContains(t, "no match", e.Message, `"Save"`)
}

// wait_for by role waits for an element that appears late: the heading
// comes 700 ms after Start is clicked.
func TestRoleTarget_WaitForLate(t *testing.T) {
	tab := openTab(t, "roles.html")
	mustRequest(t, roleAction("click", tab, "button", map[string]any{"name": "Start"}), nil)
	start := time.Now()
	mustRequest(t, roleAction("wait_for", tab, "heading", map[string]any{"name": "Welcome back", "timeoutMs": 10000}), nil)
	waited := time.Since(start)
	if waited < 300*time.Millisecond {
		t.Errorf("wait_for returned after %v; the heading appears 700 ms after the click", waited)
	}
	if got := evaluate(t, tab, "return document.querySelector('#late h2')?.textContent"); got != "Welcome back" {
		t.Fatalf("heading = %v after wait_for", got)
	}
	e := wantError(t, roleAction("wait_for", tab, "heading", map[string]any{"name": "Never here", "timeoutMs": 500}), "timeout")
	wantContains(t, "wait_for timeout", e.Message, `role heading named "Never here" still not visible after`)
}

func TestRoleTarget_TypeIntoTextbox(t *testing.T) {
	tab := openTab(t, "roles.html")
	mustRequest(t, roleAction("type", tab, "textbox", map[string]any{"name": "Email", "text": "ada@example.com"}), nil)
	mustRequest(t, roleAction("type", tab, "textbox", map[string]any{"name": "Notes", "text": "by role"}), nil)
	got := evaluate(t, tab, "return [document.querySelector('#email').value, document.querySelector('#notes').value]")
	if want := []any{"ada@example.com", "by role"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("values = %v, want %v", got, want)
	}
}

func TestRoleTarget_Hover(t *testing.T) {
	tab := openTab(t, "roles.html")
	mustRequest(t, roleAction("hover", tab, "link", map[string]any{"name": "/read the docs/i"}), nil)
	if got := evaluate(t, tab, "return document.querySelector('#docs').matches(':hover')"); got != true {
		t.Fatalf("#docs :hover = %v after hover by role", got)
	}
}

// The actionability waits apply and re-resolve the role target on each
// probe: Pay now is disabled, then replaced by a new enabled button with
// the same name, which is the one clicked. A button that never becomes
// enabled ends in timeout naming the check.
func TestRoleTarget_ActionabilityReResolves(t *testing.T) {
	tab := openTab(t, "roles.html")
	// From before the page's timer starts: the evaluate's answer can come
	// back long after it did on a loaded machine.
	start := time.Now()
	evaluate(t, tab, "enablePayLater(600); return true")
	mustRequest(t, roleAction("click", tab, "button", map[string]any{"name": "Pay now"}), nil)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("click returned after %v, before the button was enabled (600 ms)", d)
	}
	if got, want := clicks(t, tab), []any{"pay-2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %v, want %v (the new button)", got, want)
	}

	start = time.Now()
	e := wantError(t, roleAction("click", tab, "button", map[string]any{"name": "Never enabled"}), "timeout", "--timeout", "3s")
	wantContains(t, "timeout", e.Message, `role button named "Never enabled" is not enabled`)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout took %v with --timeout 3s", d)
	}
}

// The CLI's flags reach the browser: click --role/--name/--nth and
// wait-for --role.
func TestRoleTarget_CLI(t *testing.T) {
	tab := openTab(t, "roles.html")
	id := strconv.Itoa(tab)
	r := mustCLI(t, "click", "--role", "button", "--name", "Save", "--nth", "1", "--tab", id)
	wantContains(t, "click output", r.Stdout, "ok ("+cliHandle(t, id)+")")
	mustCLI(t, "click", "--role", "button", "--name", "Start", "--tab", id)
	r = mustCLI(t, "wait-for", "--role", "heading", "--name", "/welcome/i", "--tab", id, "--timeout", "10s")
	wantContains(t, "wait-for output", r.Stdout, "found")
	mustCLI(t, "type", "--role", "textbox", "--name", "Email", "--tab", id, "cli@example.com")
	if got := evaluate(t, tab, "return document.querySelector('#email').value"); got != "cli@example.com" {
		t.Fatalf("email = %v", got)
	}
	if got, want := clicks(t, tab), []any{"save-bottom"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks = %v, want %v", got, want)
	}
	r = cliCmd(t, "click", "--role", "button", "--name", "Save", "--tab", id)
	if r.Code == 0 || !strings.Contains(r.Stderr, "matches 2 elements") {
		t.Fatalf("ambiguous click: exit %d stderr %q", r.Code, r.Stderr)
	}
}

// flows/role-targets.yaml: role targets in a flow, with an expression in
// name and nth.
func TestRoleTarget_Flow(t *testing.T) {
	out, code, rep, _ := runFlow(t, "role-targets.yaml")
	if code != 0 || len(rep.Flows) != 1 || rep.Flows[0].Status != "passed" {
		t.Fatalf("bua run role-targets.yaml: exit %d\n%s", code, out)
	}
	var sawRole bool
	for _, st := range rep.Flows[0].Steps {
		if st.Kind == "click" && st.Params["role"] == "button" && st.Params["name"] == "Save" && st.Params["nth"] == float64(1) {
			sawRole = true
		}
	}
	if !sawRole {
		t.Errorf("the report has no click step with {role: button, name: Save, nth: 1} (interpolated)")
	}
}

var candidateRE = regexp.MustCompile(`nth \d+: \S+ ("(?:[^"\\]|\\.)*") <`)

// roleNames lists the names of the elements a role target matches, as the
// extension reports them: none (element_not_found), one (the action's
// target resolved: its name is then checked by the caller), or the
// candidates the ambiguity error lists. It acts on nothing: an nth past
// any plausible count reads the count, and a wait_for of 1 ms the rest.
func roleNames(t *testing.T, tab int, role, name string) (n int, names []string) {
	t.Helper()
	extra := map[string]any{"nth": 999}
	if name != "" {
		extra["name"] = name
	}
	e := wantError(t, roleAction("click", tab, role, extra), "element_not_found")
	if m := regexp.MustCompile(`matches (\d+) elements?`).FindStringSubmatch(e.Message); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	if n < 2 {
		return n, nil
	}
	delete(extra, "nth")
	e = wantError(t, roleAction("click", tab, role, extra), "invalid_action")
	for _, m := range candidateRE.FindAllStringSubmatch(e.Message, -1) {
		s, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("candidate %s: %v", m[1], err)
		}
		names = append(names, s)
	}
	return n, names
}

// Playwright's tests/page/selectors-role.spec.ts, on the HTML its tests
// set (testdata/sites/playwright/selectors-role): the same elements match
// getByRole there and a role target here.
func TestPlaywright_Roles(t *testing.T) {
	t.Run("DetectRoles", func(t *testing.T) {
		tab := openTab(t, "playwright/selectors-role/detect-roles.html")
		// role=button → [<button>Hello</button>] (the <summary> is not a button)
		if n, _ := roleNames(t, tab, "button", ""); n != 1 {
			t.Errorf("buttons: %d, want 1", n)
		}
		if n, _ := roleNames(t, tab, "button", "Hello"); n != 1 {
			t.Errorf("button Hello: %d, want 1", n)
		}
		for role, want := range map[string]int{"listbox": 1, "combobox": 1, "heading": 1, "group": 1, "dialog": 1, "menuitem": 0} {
			if n, _ := roleNames(t, tab, role, ""); n != want {
				t.Errorf("role %s: %d matches, want %d", role, n, want)
			}
		}
		if n, _ := roleNames(t, tab, "heading", "Heading"); n != 1 {
			t.Errorf("heading named Heading: %d, want 1", n)
		}
	})
	t.Run("FilterHidden", func(t *testing.T) {
		tab := openTab(t, "playwright/selectors-role/filter-hidden.html")
		n, names := roleNames(t, tab, "button", "")
		if want := []string{"Hi", "Nay", "Still here", "Shadow1"}; n != 4 || !reflect.DeepEqual(names, want) {
			t.Errorf("buttons: %d %q, want %q", n, names, want)
		}
		// role=textbox → [<input name="one">]: the one in the closed
		// <details> is hidden.
		if n, _ := roleNames(t, tab, "textbox", ""); n != 1 {
			t.Errorf("textboxes: %d, want 1", n)
		}
		// Playwright's role=option gives [One, Three]: it hides the
		// display:none <option>. Chromium's tree keeps every option of a
		// closed <select> (none is rendered), so a role target sees all
		// three (docs/extension.md §Role targets).
		if _, names := roleNames(t, tab, "option", ""); !reflect.DeepEqual(names, []string{"One", "Two", "Three"}) {
			t.Errorf("options: %q", names)
		}
	})
	t.Run("Name", func(t *testing.T) {
		tab := openTab(t, "playwright/selectors-role/name.html")
		// getByRole('button', {name: 'Hello'}) → [aria-label=" Hello "] only:
		// whitespace is collapsed, the aria-hidden one is left out.
		if n, _ := roleNames(t, tab, "button", "Hello"); n != 1 {
			t.Errorf("name Hello: %d, want 1", n)
		}
		// {name: /^H[ae]llo$/} and {name: /h.*o/i} → [" Hello ", "Hallo"].
		for _, re := range []string{"/^H[ae]llo$/", "/h.*o/i"} {
			if n, names := roleNames(t, tab, "button", re); n != 2 || !reflect.DeepEqual(names, []string{"Hello", "Hallo"}) {
				t.Errorf("name %s: %d %q, want [Hello Hallo]", re, n, names)
			}
		}
		// {name: '123'} matches only with includeHidden, which bua does not
		// offer: none.
		if n, _ := roleNames(t, tab, "button", "123"); n != 0 {
			t.Errorf("name 123: %d, want 0 (aria-hidden)", n)
		}
	})
}
