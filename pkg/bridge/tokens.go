package bridge

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/bua-dev/bua/pkg/home"
)

// NewToken returns a fresh 256-bit pairing token, 64 hex characters.
func NewToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b)
}

// ReadToken reads a token file; a missing file is "" and no error.
func ReadToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if home.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// EnsureToken returns the token at path, creating it (0600) when missing or
// when rotate is set.
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

// matchToken compares got with every configured token in constant time and
// returns the pairing it belongs to. Every comparison runs, so timing does
// not tell which pairing exists.
func matchToken(got string, tokens map[Kind]string) (Kind, bool) {
	var kind Kind
	found := 0
	for k, want := range tokens {
		if want == "" {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1 {
			kind = k
			found = 1
		}
	}
	return kind, found == 1 && got != ""
}
