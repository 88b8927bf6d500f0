// ESLint for the extension (test-only: scripts/test runs it from the
// repository root, `tools/eslint/node_modules/.bin/eslint -c
// tools/eslint/eslint.config.js`, after `npm ci --prefix tools/eslint`).
// Its packages live here, not in extension/, because npm packages may
// ship Go files (flatted does), and a node_modules inside the main Go
// module would join its `./...`: tools/ is a module of its own.
//
// The rules: ESLint's recommended ones, and a few more that catch real
// bugs rather than style. The files are matched by globs over
// extension/, relative to the directory ESLint runs in (with -c, the
// base path is that directory), so they follow the sources wherever they
// move.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    // Written by `go generate ./...` (internal/bundle, protogen): their
    // sources, and protogen's templates' tests, are what is checked.
    ignores: ["extension/src/generated/**", "extension/test/helpers/keywords-validate.js"],
  },
  {
    files: ["extension/**/*.js"],
    ...js.configs.recommended,
  },
  {
    files: ["extension/**/*.js"],
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "array-callback-return": "error",
      eqeqeq: ["error", "smart"],
      "no-constructor-return": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-unreachable-loop": "error",
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    // The worker (a module service worker), the pages of the popup and
    // the options, and the page scripts Chrome runs in a tab: chrome.*
    // is the extension API.
    files: ["extension/src/**/*.js"],
    languageOptions: {
      globals: { ...globals.browser, ...globals.serviceworker, ...globals.webextensions },
    },
  },
  {
    // node --test, with fakes of Chrome and the browser.
    files: ["extension/test/**/*.js"],
    languageOptions: { globals: { ...globals.node } },
  },
];
