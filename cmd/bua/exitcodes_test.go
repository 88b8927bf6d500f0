package main

import (
	"testing"

	"github.com/bua-dev/bua/pkg/runner/report"
)

// TestExitForStatus: each flow status has its exit code, and a suite
// exits with its worst flow's: 2 > 4 > 3 > 1 > 0.
func TestExitForStatus(t *testing.T) {
	for st, want := range map[report.Status]int{
		report.StatusPassed: exitOK, report.StatusSkipped: exitOK, report.StatusFailed: exitFailure,
		report.StatusBlocked: exitBlocked, report.StatusUnavailable: exitUnavailable, report.StatusInvalid: exitUsage,
		report.StatusInterrupted: exitInterrupted,
	} {
		if got := exitForStatus(st); got != want {
			t.Errorf("exitForStatus(%s) = %d, want %d", st, got, want)
		}
	}
	tests := []struct {
		name     string
		statuses []report.Status
		want     int
	}{
		{"AllPassed", []report.Status{report.StatusPassed, report.StatusSkipped}, exitOK},
		{"Failed", []report.Status{report.StatusPassed, report.StatusFailed}, exitFailure},
		{"BlockedOverFailed", []report.Status{report.StatusFailed, report.StatusBlocked}, exitBlocked},
		{"UnavailableOverBlocked", []report.Status{report.StatusBlocked, report.StatusUnavailable}, exitUnavailable},
		{"InvalidOverAll", []report.Status{report.StatusUnavailable, report.StatusInvalid, report.StatusFailed}, exitUsage},
		{"InterruptedOverAll", []report.Status{report.StatusInvalid, report.StatusInterrupted, report.StatusSkipped}, exitInterrupted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &report.SuiteReport{}
			for _, st := range tt.statuses {
				s.Flows = append(s.Flows, &report.FlowReport{Status: st})
			}
			if got := exitForStatus(s.Status()); got != tt.want {
				t.Errorf("suite exit = %d, want %d", got, tt.want)
			}
		})
	}
}
