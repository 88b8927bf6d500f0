// Package render writes protocol results as text: the CLI's output and
// the answers `bua mcp` gives an agent, so a person and a model read the
// same page in the same words: the MCP server is a thin adapter over the
// same output layer (docs/decisions/agent-answers.md). Only the names of the next
// steps differ, by Terms: a CLI flag (--part 2) or a protocol param
// (part: 2).
//
// Page content (markdown, element names, values, titles) is the page's,
// not bua's: an agent's answer wraps it in a Fence, whose markers carry a
// random nonce the page cannot know, so text on a page cannot pose as
// bua's words or end the block early.
package render

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
)

// Terms is whose words name a next step: the CLI's flags or the
// protocol's params, as an agent's tool takes them.
type Terms int

// The two vocabularies.
const (
	CLI Terms = iota
	Agent
)

// param names a param with its value: `--max-elements 400` for the CLI,
// `maxElements: 400` for an agent. flag is the CLI's spelling.
func (t Terms) param(name, flag string, v any) string {
	if t == CLI {
		return fmt.Sprintf("--%s %v", flag, v)
	}
	return fmt.Sprintf("%s: %v", name, v)
}

// name is a param's name alone: --selector or selector.
func (t Terms) name(name, flag string) string {
	if t == CLI {
		return "--" + flag
	}
	return name
}

// Fence marks page content as data for a model. Its markers are
// <page-content nonce="N"> and </page-content nonce="N">, N a random
// per-server nonce; any marker-like text inside the content is defanged,
// so a page that writes a closing marker, with or without a guessed
// nonce, cannot end the block. A nil *Fence writes content as is (the
// CLI's text).
type Fence struct{ nonce string }

// NewFence returns a fence with a fresh 128-bit nonce.
func NewFence() *Fence {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return &Fence{nonce: hex.EncodeToString(b)}
}

// Nonce is the fence's nonce, for the tool's description to name the
// markers.
func (f *Fence) Nonce() string { return f.nonce }

// Open and Close are the fence's markers.
func (f *Fence) Open() string  { return `<page-content nonce="` + f.nonce + `">` }
func (f *Fence) Close() string { return `</page-content nonce="` + f.nonce + `">` }

// markerLike matches what could read as a fence marker in page text.
var markerLike = strings.NewReplacer("<page-content", "<page_content", "</page-content", "</page_content")

// Wrap returns s between the markers, each on a line of its own, with
// marker-like text inside defanged; "" stays "". A nil fence returns s.
func (f *Fence) Wrap(s string) string {
	if f == nil || s == "" {
		return s
	}
	return f.Open() + "\n" + strings.TrimRight(markerLike.Replace(s), "\n") + "\n" + f.Close()
}

// Inline is Wrap on one line, for a short piece of page text (a title, a
// dialog's message) inside bua's own sentence.
func (f *Fence) Inline(s string) string {
	if f == nil || s == "" {
		return s
	}
	return f.Open() + markerLike.Replace(s) + f.Close()
}
