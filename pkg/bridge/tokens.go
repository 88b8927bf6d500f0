package bridge

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/bua-dev/bua/pkg/home"
)

// TokenLen is a pairing token's length: 64 hex characters, 256 bits.
const TokenLen = 64

// NewToken returns a fresh 256-bit pairing token, TokenLen hex characters.
func NewToken() string {
	b := make([]byte, TokenLen/2)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// ErrBadToken means a token file exists but holds no token bua would
// accept: it does not read, or is not TokenLen hex characters (a one-byte
// token could be guessed). ReadToken's errors wrap it; their messages never
// quote the file's content, which may be most of a secret.
var ErrBadToken = errors.New("the pairing token file is unreadable or malformed")

// ReadToken reads a token file; a missing file is "" and no error. A file
// that does not read, or whose content (spaces trimmed) is not TokenLen
// hex characters, is "" and an error wrapping ErrBadToken.
func ReadToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if home.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w (%s): %w", ErrBadToken, path, err)
	}
	tok := strings.TrimSpace(string(data))
	if _, herr := hex.DecodeString(tok); len(tok) != TokenLen || herr != nil {
		return "", fmt.Errorf("%w (%s): %d characters that are not %d hex digits", ErrBadToken, path, len(tok), TokenLen)
	}
	return tok, nil
}

// EnsureToken returns the token at path, creating it (0600) when missing or
// when rotate is set. Without rotate, a bad token file is ReadToken's
// error (ErrBadToken), left in place: the user pairing is the person's to
// replace (`bua pair --rotate`); HealToken replaces the managed one.
func EnsureToken(path string, rotate bool) (string, error) {
	if !rotate {
		tok, err := ReadToken(path)
		if err != nil || tok != "" {
			return tok, err
		}
	}
	tok := NewToken()
	if err := home.WriteFile(path, []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return tok, nil
}

// HealToken is EnsureToken for a token only bua reads, the managed
// pairing's: a bad token file is replaced with a new token, and log says
// so once, instead of every launch's browser failing the handshake. The
// browser gets the new token in its pairing.json at its next launch.
func HealToken(path string, log *slog.Logger) (string, error) {
	tok, err := EnsureToken(path, false)
	if !errors.Is(err, ErrBadToken) {
		return tok, err
	}
	log.Warn("managed pairing token replaced: the old one was unreadable or malformed", "err", err)
	return EnsureToken(path, true)
}

// matchToken compares got with every configured token, by browser name,
// in constant time and returns the browser it belongs to. Every
// comparison runs, so timing does not tell which pairing exists.
func matchToken(got string, tokens map[string]string) (string, bool) {
	var name string
	found := 0
	for n, want := range tokens {
		if want == "" {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1 {
			name = n
			found = 1
		}
	}
	return name, found == 1 && got != ""
}
