package bridge

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"
)

// PairCodeTTL bounds a one-time pairing code's life (004 §pairing-code).
const PairCodeTTL = 5 * time.Minute

// codeAlphabet drops 0/O, 1/I/L and U so a code read aloud or copied by
// hand survives.
const codeAlphabet = "ABCDEFGHJKMNPQRSTVWXYZ23456789"

// pairCodes holds outstanding one-time codes; each claims the token of
// one user pairing (user, or a named one) once.
type pairCodes struct {
	mu    sync.Mutex
	codes map[string]pairCode
}

// pairCode is an outstanding code: its expiry and the pairing it claims.
type pairCode struct {
	expires time.Time
	pairing string
}

// mint returns a new code like "K7QD-M2XP" for the pairing so named, that
// expires after PairCodeTTL.
func (p *pairCodes) mint(now time.Time, pairing string) (string, time.Time) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	var s strings.Builder
	for i, c := range b {
		if i == 4 {
			s.WriteByte('-')
		}
		s.WriteByte(codeAlphabet[int(c)%len(codeAlphabet)])
	}
	code, exp := s.String(), now.Add(PairCodeTTL)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.codes == nil {
		p.codes = make(map[string]pairCode)
	}
	for c, e := range p.codes {
		if now.After(e.expires) {
			delete(p.codes, c)
		}
	}
	p.codes[code] = pairCode{exp, pairing}
	return code, exp
}

// claim consumes code and returns the pairing it was minted for; false
// when unknown, used or expired.
func (p *pairCodes) claim(code string, now time.Time) (string, bool) {
	code = strings.ToUpper(strings.TrimSpace(code))
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.codes[code]
	if !ok {
		return "", false
	}
	delete(p.codes, code)
	return c.pairing, now.Before(c.expires)
}
