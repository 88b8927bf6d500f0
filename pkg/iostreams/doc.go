// Package iostreams is bua's one output layer, in the manner of cli/cli's
// pkg/iostreams and tableprinter: it knows whether stdout is a terminal,
// how wide it is, whether colour is wanted (never when NO_COLOR is set,
// https://no-color.org) and whether the user asked for --quiet.
//
// Tables render two ways: on a terminal, a bordered table fitted to the
// terminal's width, cutting the widest columns first with "…"; piped, plain
// tab-separated lines with full values and no header, so `bua tabs | grep
// login` and `cut -f1` work. --json output bypasses this package.
package iostreams
