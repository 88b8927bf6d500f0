// Package linkauth is the mutual proof that opens the CLI's link to the
// daemon where that link is a loopback TCP connection (Windows; the unix
// socket elsewhere is checked by the kernel's peer credentials instead,
// pkg/home/link_unix.go).
//
// Any local user may listen on a loopback port that is free, or connect to
// one that is taken, so neither end trusts the other until it has proved
// that it holds the link key: 32 random bytes the daemon writes, with its
// address, into the user's private runtime directory (pkg/home's link
// file), which no other user can read. The key itself never crosses the
// connection. Each side answers the other's fresh nonce with an HMAC-SHA256
// over both nonces, the address the client dialled, and its own role, so a
// proof cannot be replayed, reflected back to its maker, or relayed from
// one address to another:
//
//	client → server   "bua-link/1 " nonceC            (hex, 32 bytes)
//	server → client   nonceS " " HMAC(key, "server" | addr | nonceC | nonceS)
//	client → server   HMAC(key, "client" | addr | nonceC | nonceS)
//	server → client   "ok"
//
// Each message is one line of ASCII. The client sends nothing of its
// request until the server has proved the key (Client returns), and the
// server reads nothing of one until the client has (Server returns): a
// squatter on the port learns one random nonce, and a stranger that
// connects to the daemon learns one random nonce and a proof bound to it.
package linkauth

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// KeySize is the length of a link key in bytes.
const KeySize = 32

// nonceSize is the length of each side's nonce in bytes.
const nonceSize = 32

// greeting opens the client's first line; a new version of the proof
// changes it, so the two ends never misread each other.
const greeting = "bua-link/1"

// maxLine bounds each line read, so a peer that never sends a newline
// costs at most this many bytes: the longest legal line is the server's
// (two hex strings and a space).
const maxLine = 2*2*sha256.Size + 16

// DefaultTimeout bounds the whole exchange when ctx has no deadline: on
// loopback it takes well under a millisecond, so a peer this slow is
// stuck or hostile.
const DefaultTimeout = 5 * time.Second

// ErrServerProof means the process that answered on the link's address
// did not prove that it holds the link key: it is not the user's daemon
// (another program, or another user's, took the port), and the client
// sent it nothing but a nonce.
var ErrServerProof = errors.New("the process answering did not prove it holds the link key")

// ErrClientProof means a client that connected to the daemon did not prove
// that it holds the link key (another local user, or a stray program): the
// daemon closes the connection without reading a request.
var ErrClientProof = errors.New("the client did not prove it holds the link key")

// NewKey returns a fresh random link key of KeySize bytes.
func NewKey() ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("linkauth: random key: %w", err)
	}
	return key, nil
}

// Client proves to the server on conn that this side holds key, and checks
// that the server holds it too, before the caller sends any request. addr
// is the address the client dialled, exactly as the link file gives it
// ("127.0.0.1:50123"). The error wraps ErrServerProof when the server's
// proof is missing or wrong, and is a plain I/O or timeout error when the
// connection failed; either way the caller must close conn. ctx's
// deadline, or DefaultTimeout, bounds the exchange; conn's deadline is
// cleared on success.
func Client(ctx context.Context, conn net.Conn, key []byte, addr string) error {
	if len(key) != KeySize {
		return fmt.Errorf("linkauth: the link key has %d bytes, not %d", len(key), KeySize)
	}
	stop := deadline(ctx, conn)
	defer stop()
	nc := make([]byte, nonceSize)
	if _, err := rand.Read(nc); err != nil {
		return err
	}
	if err := writeLine(conn, greeting+" "+hex.EncodeToString(nc)); err != nil {
		return err
	}
	r := bufio.NewReaderSize(conn, maxLine+1)
	line, err := readLine(r)
	if err != nil {
		return proofFailed(ErrServerProof, err)
	}
	nsHex, proofHex, ok := strings.Cut(line, " ")
	ns, nerr := hex.DecodeString(nsHex)
	proof, perr := hex.DecodeString(proofHex)
	if !ok || nerr != nil || perr != nil || len(ns) != nonceSize {
		return fmt.Errorf("%w: it answered %q", ErrServerProof, clip(line))
	}
	if !hmac.Equal(proof, mac(key, "server", addr, nc, ns)) {
		return fmt.Errorf("%w: its proof is wrong", ErrServerProof)
	}
	if err := writeLine(conn, hex.EncodeToString(mac(key, "client", addr, nc, ns))); err != nil {
		return err
	}
	line, err = readLine(r)
	if err != nil {
		return err
	}
	if line != "ok" {
		return fmt.Errorf("linkauth: the daemon refused this client's proof (%q): the link key changed under it; retry", clip(line))
	}
	if r.Buffered() > 0 {
		// Nothing follows "ok" until the client sends a request.
		return fmt.Errorf("%w: it sent more than its proof", ErrServerProof)
	}
	return nil
}

// Server checks that the client on conn holds key and proves that this
// side holds it too, before the caller reads any request. addr is the
// address the daemon listens on, as its listener reports it. The error
// wraps ErrClientProof when the client's greeting or proof is missing or
// wrong (the caller closes conn without reading more); ctx's deadline, or
// DefaultTimeout, bounds the exchange, and conn's deadline is cleared on
// success.
func Server(ctx context.Context, conn net.Conn, key []byte, addr string) error {
	if len(key) != KeySize {
		return fmt.Errorf("linkauth: the link key has %d bytes, not %d", len(key), KeySize)
	}
	stop := deadline(ctx, conn)
	defer stop()
	r := bufio.NewReaderSize(conn, maxLine+1)
	line, err := readLine(r)
	if err != nil {
		return proofFailed(ErrClientProof, err)
	}
	ncHex, ok := strings.CutPrefix(line, greeting+" ")
	nc, nerr := hex.DecodeString(ncHex)
	if !ok || nerr != nil || len(nc) != nonceSize {
		return fmt.Errorf("%w: it greeted %q", ErrClientProof, clip(line))
	}
	ns := make([]byte, nonceSize)
	if _, err := rand.Read(ns); err != nil {
		return err
	}
	if err := writeLine(conn, hex.EncodeToString(ns)+" "+hex.EncodeToString(mac(key, "server", addr, nc, ns))); err != nil {
		return err
	}
	line, err = readLine(r)
	if err != nil {
		return proofFailed(ErrClientProof, err)
	}
	proof, perr := hex.DecodeString(line)
	if perr != nil || !hmac.Equal(proof, mac(key, "client", addr, nc, ns)) {
		_ = writeLine(conn, "no")
		return fmt.Errorf("%w: its proof is wrong", ErrClientProof)
	}
	if r.Buffered() > 0 {
		// A client sends its first request only after "ok".
		return fmt.Errorf("%w: it sent more than its proof", ErrClientProof)
	}
	return writeLine(conn, "ok")
}

// mac is HMAC-SHA256 under key of role, addr and both nonces, each field
// length-prefixed so that no two transcripts encode alike.
func mac(key []byte, role, addr string, nc, ns []byte) []byte {
	h := hmac.New(sha256.New, key)
	for _, field := range [][]byte{[]byte(greeting), []byte(role), []byte(addr), nc, ns} {
		h.Write([]byte{byte(len(field) >> 8), byte(len(field))})
		h.Write(field)
	}
	return h.Sum(nil)
}

// deadline sets conn's deadline from ctx (or DefaultTimeout), and closes
// conn if ctx is cancelled first, which unblocks a read; stop clears both.
func deadline(ctx context.Context, conn net.Conn) (stop func()) {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(DefaultTimeout)
	}
	_ = conn.SetDeadline(dl)
	unwatch := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	return func() {
		unwatch()
		_ = conn.SetDeadline(time.Time{})
	}
}

func writeLine(w io.Writer, s string) error {
	_, err := io.WriteString(w, s+"\n")
	return err
}

// errLongLine is a line over maxLine bytes.
var errLongLine = errors.New("a line over the longest the proof has")

// readLine reads one line of at most maxLine bytes, without its newline.
func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxLine+1 {
		return "", errLongLine
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(line[:len(line)-1]), "\r"), nil
}

// proofFailed is the error of a read that ended the exchange: the peer
// hung up or sent a line too long is a proof that never came (sentinel),
// a timeout stays a timeout.
func proofFailed(sentinel, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, errLongLine) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %v", sentinel, err)
	}
	return err
}

// clip shortens what a peer sent for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
