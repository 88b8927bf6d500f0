package harness

import "testing"

func TestLogTail(t *testing.T) {
	for _, tc := range []struct {
		name, log string
		n         int
		want      string
	}{
		{"short log as is", "a\nb\n", 5, "a\nb\n"},
		{"last n lines", "a\nb\nc\nd", 2, "c\nd\n"},
		{"D-Bus noise left out", "a\n[1:2:ERROR:dbus/bus.cc:405] Failed to connect to the bus\nb", 5, "a\nb\n"},
		{
			"a run with the same msg folded, by message not time",
			"time=1 level=INFO msg=\"handshake rejected\" closeCode=4002\ntime=2 level=INFO msg=\"handshake rejected\" closeCode=4002\ntime=3 level=INFO msg=\"handshake rejected\" closeCode=4002\ntime=4 msg=connected",
			5,
			"time=1 level=INFO msg=\"handshake rejected\" closeCode=4002\n   … and 2 more like it\ntime=4 msg=connected\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := logTail(tc.log, tc.n); got != tc.want {
				t.Errorf("logTail = %q, want %q", got, tc.want)
			}
		})
	}
}
