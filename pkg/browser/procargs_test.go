package browser

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// procArgs2 lays out a kern.procargs2 buffer as macOS's kernel does:
// argc, the executable's path, NUL padding, the arguments, then the
// environment.
func procArgs2(order binary.ByteOrder, exe string, pad int, args []string, env ...string) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, order, int32(len(args)))
	b.WriteString(exe)
	b.Write(make([]byte, 1+pad))
	for _, a := range append(append([]string{}, args...), env...) {
		b.WriteString(a)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// TestParseProcArgs2: the arguments of a browser under ~/Library/
// Application Support come back whole, spaces and all, which ps(1)'s
// command= column could not give; the environment after them is left
// out; a short or damaged buffer is nil, never a guess.
func TestParseProcArgs2(t *testing.T) {
	exe := "/Applications/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
	args := []string{exe, "--user-data-dir=/Users/ada/Library/Application Support/bua/browser/profile", "--no-first-run", ""}
	for _, tc := range []struct {
		name string
		buf  []byte
		want []string
	}{
		{"little-endian, padded", procArgs2(binary.LittleEndian, exe, 7, args, "HOME=/Users/ada", "PATH=/usr/bin"), args},
		{"big-endian, unpadded", procArgs2(binary.BigEndian, exe, 0, args), args},
		{"one argument", procArgs2(binary.LittleEndian, exe, 3, []string{"chrome"}, "A=B"), []string{"chrome"}},
		{"empty", nil, nil},
		{"argc alone", []byte{2, 0, 0, 0}, nil},
		{"argc larger than the buffer", procArgs2(binary.LittleEndian, exe, 0, []string{"a"})[:10], nil},
		{"arguments cut short", procArgs2(binary.LittleEndian, exe, 2, args)[:len(procArgs2(binary.LittleEndian, exe, 2, args))-5], nil},
		{"a negative argc", append([]byte{0xff, 0xff, 0xff, 0xff}, []byte("x\x00a\x00")...), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order := binary.ByteOrder(binary.LittleEndian)
			if tc.name == "big-endian, unpadded" {
				order = binary.BigEndian
			}
			if got := parseProcArgs2(tc.buf, order); !slices.Equal(got, tc.want) {
				t.Errorf("parseProcArgs2 = %q, want %q", got, tc.want)
			}
		})
	}
}
