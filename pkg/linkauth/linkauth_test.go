package linkauth

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// pair is a loopback TCP connection, client end first, and the address
// the client dialled: the transport the proof runs on.
func pair(t *testing.T) (client, server net.Conn, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server, ln.Addr().String()
}

func key(t *testing.T) []byte {
	t.Helper()
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestProof: both ends prove the key in each direction, or the exchange
// fails on the side that was lied to, with its sentinel.
func TestProof(t *testing.T) {
	k, other := key(t), key(t)
	for _, tc := range []struct {
		name                 string
		clientKey, serverKey []byte
		clientAddr           string // "" is the address really dialled
		wantClient           error  // nil, or the sentinel Client's error wraps
		wantServer           error
	}{
		{"same key", k, k, "", nil, nil},
		{"the server holds another key", k, other, "", ErrServerProof, ErrClientProof},
		{"the client holds another key", other, k, "", ErrServerProof, ErrClientProof},
		// A proof is bound to the address: a relay from one port to
		// another (a squatter forwarding to the real daemon) fails.
		{"relayed from another address", k, k, "127.0.0.1:1", ErrServerProof, ErrClientProof},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s, addr := pair(t)
			clientAddr := addr
			if tc.clientAddr != "" {
				clientAddr = tc.clientAddr
			}
			serverErr := make(chan error, 1)
			go func() {
				err := Server(context.Background(), s, tc.serverKey, addr)
				if err != nil {
					s.Close() // as the daemon does, so the client's wait ends
				}
				serverErr <- err
			}()
			cerr := Client(context.Background(), c, tc.clientKey, clientAddr)
			if cerr != nil {
				c.Close()
			}
			serr := <-serverErr
			if !matches(cerr, tc.wantClient) {
				t.Errorf("client: %v, want %v", cerr, tc.wantClient)
			}
			if !matches(serr, tc.wantServer) {
				t.Errorf("server: %v, want %v", serr, tc.wantServer)
			}
			if tc.wantClient == nil && tc.wantServer == nil {
				// The connection carries the link's frames afterwards,
				// with nothing of the proof left over.
				go io.WriteString(c, "{\"op\":\"status\"}\n")
				line, err := bufio.NewReader(s).ReadString('\n')
				if err != nil || line != "{\"op\":\"status\"}\n" {
					t.Errorf("after the proof the server read %q, %v", line, err)
				}
			}
		})
	}
}

func matches(err, want error) bool {
	if want == nil {
		return err == nil
	}
	return errors.Is(err, want)
}

// TestSquatterLearnsOnlyANonce: a process that took the port without the
// key, and answers as best it can (here: with garbage, with silence, with
// the client's own nonce reflected, with a proof made under another key),
// receives the client's greeting and nothing else; the client's error
// says the listener is not the daemon, or timed out.
func TestSquatterLearnsOnlyANonce(t *testing.T) {
	k := key(t)
	for _, tc := range []struct {
		name   string
		answer func(greeting string) string // "" says nothing
		want   error
	}{
		{"garbage", func(string) string { return "hello there\n" }, ErrServerProof},
		{"hangs up", nil, ErrServerProof},
		{"silence", func(string) string { return "" }, nil},
		{"its nonce reflected as a proof", func(g string) string {
			nc := strings.TrimPrefix(g, greeting+" ")
			return nc + " " + nc + "\n"
		}, ErrServerProof},
		{"a proof under another key", func(g string) string {
			nc, _ := hex.DecodeString(strings.TrimSpace(strings.TrimPrefix(g, greeting+" ")))
			ns := bytes.Repeat([]byte{7}, nonceSize)
			return hex.EncodeToString(ns) + " " + hex.EncodeToString(mac(bytes.Repeat([]byte{1}, KeySize), "server", "x", nc, ns)) + "\n"
		}, ErrServerProof},
		{"a line longer than any proof", func(string) string { return strings.Repeat("a", 4096) + "\n" }, ErrServerProof},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s, addr := pair(t)
			got := make(chan []byte, 1)
			go func() {
				r := bufio.NewReader(s)
				g, _ := r.ReadString('\n')
				if tc.answer == nil {
					s.Close()
				} else if a := tc.answer(g); a != "" {
					io.WriteString(s, a)
				}
				s.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
				rest, _ := io.ReadAll(r)
				got <- append([]byte(g), rest...)
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := Client(ctx, c, k, addr)
			c.Close()
			if err == nil {
				t.Fatal("the client trusted a squatter")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("client: %v, want %v", err, tc.want)
			}
			if tc.want == nil && errors.Is(err, ErrServerProof) {
				t.Errorf("a silent peer is a timeout, not a wrong proof: %v", err)
			}
			received := <-got
			if want := len(greeting) + 1 + 2*nonceSize + 1; len(received) != want {
				t.Errorf("the squatter received %d bytes (%q), want the greeting's %d alone", len(received), received, want)
			}
		})
	}
}

// TestStrangerGetsNothing: a client without the key (another user's
// program, a port scanner) gets no further than the server's proof: the
// server returns ErrClientProof before reading a request, whatever the
// stranger sends.
func TestStrangerGetsNothing(t *testing.T) {
	k := key(t)
	for _, tc := range []struct{ name, send string }{
		{"a request at once", "{\"op\":\"stop\"}\n"},
		{"an http request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"a greeting with a short nonce", greeting + " abcd\n"},
		{"a greeting then a request as its proof", greeting + " " + strings.Repeat("ab", nonceSize) + "\n{\"op\":\"stop\"}\n"},
		{"a greeting and a proof glued to a request", greeting + " " + strings.Repeat("ab", nonceSize) + "\n" + strings.Repeat("00", 32) + "\n{\"op\":\"stop\"}\n"},
		{"a line with no end", strings.Repeat("x", 10000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, s, addr := pair(t)
			go io.WriteString(c, tc.send)
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			err := Server(ctx, s, k, addr)
			if !errors.Is(err, ErrClientProof) {
				t.Errorf("server: %v, want ErrClientProof", err)
			}
		})
	}
}

// TestSilentClientTimesOut: a client that connects and says nothing holds
// the server for its deadline only.
func TestSilentClientTimesOut(t *testing.T) {
	_, s, addr := pair(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Server(ctx, s, key(t), addr)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("server: %v, want a timeout", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the silent client held the server %s", took)
	}
}

// TestBadKeySize: a key of the wrong size (a damaged link file) is an
// error before a byte is sent.
func TestBadKeySize(t *testing.T) {
	c, _, addr := pair(t)
	if err := Client(context.Background(), c, []byte("short"), addr); err == nil || errors.Is(err, ErrServerProof) {
		t.Errorf("client with a 5-byte key: %v", err)
	}
}
