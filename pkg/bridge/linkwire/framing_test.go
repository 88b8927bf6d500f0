package linkwire_test

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/bua-dev/bua/pkg/bridge/linkwire"
)

func TestReadLine(t *testing.T) {
	const limit = 10
	tests := []struct {
		name string
		in   string
		// want is each ReadLine's line, then its error ("" for none).
		want [][2]string
	}{
		{"Short", "abc\nde\n", [][2]string{{"abc", ""}, {"de", ""}, {"", "EOF"}}},
		{"AtLimit", "0123456789\n", [][2]string{{"0123456789", ""}, {"", "EOF"}}},
		{"OverByOne", "0123456789X\nnext\n", [][2]string{{"0123456789", "line too long"}, {"next", ""}}},
		// Longer than the reader's 16-byte buffer: read to its end in
		// pieces, kept to the limit, and the next line is intact.
		{"Long", strings.Repeat("x", 1000) + "\nnext\n", [][2]string{{"xxxxxxxxxx", "line too long"}, {"next", ""}}},
		{"EOFMidLine", "abc", [][2]string{{"abc", "EOF"}}},
		{"EOFMidLongLine", strings.Repeat("x", 100), [][2]string{{"xxxxxxxxxx", "EOF"}}},
		{"Empty", "\n", [][2]string{{"", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var buf []byte
			for i, w := range tt.want {
				line, err := linkwire.ReadLine(r, limit, buf[:0])
				buf = line
				gotErr := ""
				if err != nil {
					gotErr = err.Error()
				}
				if string(line) != w[0] || gotErr != w[1] {
					t.Fatalf("line %d = %q, %q; want %q, %q", i, line, gotErr, w[0], w[1])
				}
				if w[1] == "EOF" && !errors.Is(err, io.EOF) {
					t.Fatalf("line %d error %v is not io.EOF", i, err)
				}
			}
		})
	}
}

func TestFrameID(t *testing.T) {
	tests := []struct{ name, prefix, want string }{
		{"ClientOrder", `{"id":"17","op":"request","action":{"type":"type","text":"aaaaaaaa`, "17"},
		{"IDNotFirst", `{"op":"request","id":"17"}`, ""},
		{"CutInID", `{"id":"1`, ""},
		{"NotJSON", `xx{"id":"17"}`, ""},
		{"NumberID", `{"id":17,"op":"status"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := linkwire.FrameID([]byte(tt.prefix)); got != tt.want {
				t.Errorf("FrameID = %q, want %q", got, tt.want)
			}
		})
	}
}
