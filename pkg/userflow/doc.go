// Package userflow converts a Chrome DevTools Recorder user flow, the JSON
// recording that @puppeteer/replay replays (its src/Schema.ts: a title, an
// optional timeout and a list of steps), into a bua flow: `bua import`.
// docs/record.md, "Importing a Chrome DevTools Recorder flow", is the
// user's account of the mapping.
//
// Parse reads a recording, naming the line and column of what is wrong
// with it. Convert maps each step to bua actions, written through the flow
// writer (pkg/flowwriter), so an imported flow follows the same rules as a
// recorded one: URLs on vars.base, a wait_for after each navigation, text
// typed into a password field read from a BUA_ environment variable, a tab
// a click opened named through the click's newTabId.
//
// A step the flow cannot replay as the recording did is still written
// where it can be (with a "bua: edit this" comment) and reported as a
// Problem; what bua does its own way with no change to what the flow
// checks (click offsets, the viewport) is reported as a Note.
package userflow
