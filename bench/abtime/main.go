// Command abtime times whole processes, interleaved: each round runs every
// command once, in order (A B C A B C ...), so all of them see the same
// machine load, and prints each command's median, quartiles and its median
// ratio to the first command taken round by round. It is how BENCHMARKS.md
// compares two builds of bua (before and after a change) on one-shot
// commands against one warm daemon and browser:
//
//	go run ./bench/abtime -n 300 -c "/tmp/bua-before eval 'return 1'" -c "/tmp/bua-after eval 'return 1'"
//
// A command is split into words as a shell would, single quotes only; it
// runs with no shell, stdin empty and its output discarded. A command that
// fails stops the run, since its time would say nothing.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

type commands []string

func (c *commands) String() string     { return strings.Join(*c, " | ") }
func (c *commands) Set(s string) error { *c = append(*c, s); return nil }

func main() {
	var cmds commands
	rounds := flag.Int("n", 200, "timed rounds")
	warmup := flag.Int("w", 10, "rounds run first and not timed")
	flag.Var(&cmds, "c", "a command to time (repeat: the first is the baseline of the ratios)")
	flag.Parse()
	if len(cmds) == 0 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "abtime: give -c COMMAND at least once, and -n 1 or more")
		os.Exit(2)
	}
	argvs := make([][]string, len(cmds))
	for i, c := range cmds {
		if argvs[i] = words(c); len(argvs[i]) == 0 {
			fmt.Fprintf(os.Stderr, "abtime: command %d is empty\n", i+1)
			os.Exit(2)
		}
	}
	us := make([][]float64, len(cmds)) // per command, per timed round
	for r := 0; r < *warmup+*rounds; r++ {
		for i, argv := range argvs {
			cmd := exec.Command(argv[0], argv[1:]...)
			start := time.Now()
			err := cmd.Run()
			took := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "abtime: %s: %v\n", cmds[i], err)
				os.Exit(1)
			}
			if r >= *warmup {
				us[i] = append(us[i], float64(took.Microseconds()))
			}
		}
	}
	for i := range cmds {
		ratios := make([]float64, len(us[i]))
		for r := range us[i] {
			ratios[r] = us[i][r] / us[0][r]
		}
		fmt.Printf("%-50s median %7.0f µs  p25 %7.0f  p75 %7.0f  paired ratio to the first %.3f\n",
			cmds[i], quantile(us[i], 0.5), quantile(us[i], 0.25), quantile(us[i], 0.75), quantile(ratios, 0.5))
	}
}

// quantile is the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

// words splits s on spaces, keeping what single quotes hold together.
func words(s string) []string {
	var out []string
	var w strings.Builder
	quoted, in := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case r == ' ' && !quoted:
			if in {
				out = append(out, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}
