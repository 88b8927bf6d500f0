package main

import (
	"testing"

	"github.com/bua-dev/bua/pkg/runner"
)

// TestExitForStatus: each flow status has its exit code, and a suite
// exits with its worst flow's: 2 > 4 > 3 > 1 > 0.
func TestExitForStatus(t *testing.T) {
	for st, want := range map[runner.Status]int{
		runner.StatusPassed: exitOK, runner.StatusSkipped: exitOK, runner.StatusFailed: exitFailure,
		runner.StatusBlocked: exitBlocked, runner.StatusUnavailable: exitUnavailable, runner.StatusInvalid: exitUsage,
		runner.StatusInterrupted: exitInterrupted,
	} {
		if got := exitForStatus(st); got != want {
			t.Errorf("exitForStatus(%s) = %d, want %d", st, got, want)
		}
	}
	tests := []struct {
		name     string
		statuses []runner.Status
		want     int
	}{
		{"AllPassed", []runner.Status{runner.StatusPassed, runner.StatusSkipped}, exitOK},
		{"Failed", []runner.Status{runner.StatusPassed, runner.StatusFailed}, exitFailure},
		{"BlockedOverFailed", []runner.Status{runner.StatusFailed, runner.StatusBlocked}, exitBlocked},
		{"UnavailableOverBlocked", []runner.Status{runner.StatusBlocked, runner.StatusUnavailable}, exitUnavailable},
		{"InvalidOverAll", []runner.Status{runner.StatusUnavailable, runner.StatusInvalid, runner.StatusFailed}, exitUsage},
		{"InterruptedOverAll", []runner.Status{runner.StatusInvalid, runner.StatusInterrupted, runner.StatusSkipped}, exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &runner.SuiteReport{}
			for _, st := range tt.statuses {
				s.Flows = append(s.Flows, &runner.FlowReport{Status: st})
			}
			if got := exitForStatus(s.Status()); got != tt.want {
				t.Errorf("suite exit = %d, want %d", got, tt.want)
			}
		})
	}
}
