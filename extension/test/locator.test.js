import { test } from "node:test";
import assert from "node:assert/strict";
import { orderLocators } from "../src/target/locator.js";
import { cssString, isGeneratedId, isStableClass, normalizeText } from "../src/page/locator-rules.js";
import { targetName } from "../src/actions/describe.js";
import { parseName } from "../src/target/role-target.js";

test("ids a person wrote are kept; ids a framework or a build made are not", () => {
  const kept = ["email", "password", "submit", "signin-form", "b199", "main-nav", "searchInput", "userName", "section2", "q", "login_button", "i18nLabel"];
  const generated = [
    ":r1:", ":R2a:", "«r0»", "ember123", "ember1", "mui-4", "react-select-2-input", "radix-:r3:", "headlessui-menu-button-7",
    "mat-input-0", "cdk-overlay-12", "input-12345", "post-20240101", "550e8400-e29b-41d4-a716-446655440000", "a1b2c3d4", "xK9qL2mP",
    "1abc", "j_idt42", "yui_3_5_1_1", "ext-gen1234", "gwt-uid-7", "el-id-1024-9", "pr_id_3", "",
  ];
  for (const id of kept) assert.equal(isGeneratedId(id), false, id);
  for (const id of generated) assert.equal(isGeneratedId(id), true, id);
});

test("classes: meaningful names are stable, hashes and passing states are not", () => {
  for (const c of ["btn", "btn-primary", "login-form", "nav__item", "card", "Header_title", "navItem", "css-grid"]) assert.equal(isStableClass(c), true, c);
  for (const c of ["css-1x2y3z4", "sc-bdVaJa", "jsx-123456", "_3xk2b", "Header_title__a8B3x", "active", "is-open", "has-error", "ng-dirty", "col-123", "kGIqCc"]) {
    assert.equal(isStableClass(c), false, c);
  }
});

test("CSS strings and text normalisation", () => {
  assert.equal(cssString('a "b" \\c'), '"a \\"b\\" \\\\c"');
  assert.equal(cssString("x\ny"), '"x\\a y"');
  assert.equal(normalizeText("  a \n\t b  "), "a b");
});

test("locators that match the element alone come first, by Testing Library's order; ones matching nothing go", () => {
  const got = orderLocators([
    { by: "text", text: "Go", count: 1 },
    { by: "css", selector: "button", count: 3, nth: 1 },
    { by: "id", selector: "#go", count: 1 },
    { by: "role", role: "button", name: "Go", count: 2, nth: 0 },
    { by: "testid", selector: '[data-testid="go"]', count: 1 },
    { by: "label", label: "Go", count: 0 },
  ]);
  assert.deepEqual(got.map((l) => l.by), ["testid", "id", "text", "role", "css"]);
});

test("a role locator's name that reads as /pattern/ becomes the pattern that matches exactly it", () => {
  assert.equal(targetName("Sign in"), "Sign in");
  const n = targetName("/a+b/i");
  const re = parseName(n).regex;
  assert.ok(re.test("/a+b/i"));
  assert.ok(!re.test("/aab/i") && !re.test("x/a+b/i"));
});

