package devbuild

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// goreleaserConfig is the part of .goreleaser.yaml the tests hold to this
// package and to reproducibility.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID           string   `yaml:"id"`
		Main         string   `yaml:"main"`
		Env          []string `yaml:"env"`
		Flags        []string `yaml:"flags"`
		Tags         []string `yaml:"tags"`
		LDFlags      []string `yaml:"ldflags"`
		Goos         []string `yaml:"goos"`
		Goarch       []string `yaml:"goarch"`
		ModTimestamp string   `yaml:"mod_timestamp"`
	} `yaml:"builds"`
	Archives []struct {
		BuildsInfo struct {
			MTime string `yaml:"mtime"`
		} `yaml:"builds_info"`
		Files []struct {
			Src  string `yaml:"src"`
			Info struct {
				MTime string `yaml:"mtime"`
			} `yaml:"info"`
		} `yaml:"files"`
	} `yaml:"archives"`
	NFPMs []struct {
		MTime    string   `yaml:"mtime"`
		Suggests []string `yaml:"suggests"`
		Depends  []string `yaml:"dependencies"`
		Contents []struct {
			Src      string `yaml:"src"`
			FileInfo struct {
				MTime string `yaml:"mtime"`
			} `yaml:"file_info"`
		} `yaml:"contents"`
	} `yaml:"nfpms"`
}

func readGoreleaserConfig(t *testing.T) goreleaserConfig {
	t.Helper()
	src, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(src, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// commitDate is the one time a release may stamp: the commit's.
const commitDate = "{{ .CommitDate }}"

// TestGoreleaserSameFlags: the release builds bua as a development build
// does (Env, Flags, Tags: static, -trimpath, no man-page generator), so
// that the tests and benchmarks measure what users download, and links
// with ReleaseLDFlags only; it builds the six targets; and every time it
// stamps (the binaries', the archives' entries', the packages') is the
// commit's, which scripts/release-reproducible relies on.
func TestGoreleaserSameFlags(t *testing.T) {
	cfg := readGoreleaserConfig(t)
	if cfg.Version != 2 {
		t.Errorf(".goreleaser.yaml: version %d, want 2", cfg.Version)
	}
	if len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml has %d builds, want 1: the archives, packages and npm packages take one bua per target", len(cfg.Builds))
	}
	b := cfg.Builds[0]
	if main := Args("bua")[len(Args("bua"))-1]; b.Main != main {
		t.Errorf("build %s: main %q, internal/devbuild builds %q", b.ID, b.Main, main)
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"env", b.Env, Env},
		{"flags", b.Flags, Flags},
		{"tags", b.Tags, strings.Split(Tags, ",")},
		{"ldflags", b.LDFlags, ReleaseLDFlags},
		{"goos", b.Goos, []string{"linux", "darwin", "windows"}},
		{"goarch", b.Goarch, []string{"amd64", "arm64"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("build %s: %s %q, want %q (internal/devbuild)", b.ID, c.what, c.got, c.want)
		}
	}
	if b.ModTimestamp != "{{ .CommitTimestamp }}" {
		t.Errorf("build %s: mod_timestamp %q, want the commit's", b.ID, b.ModTimestamp)
	}
	if len(cfg.Archives) == 0 || len(cfg.NFPMs) == 0 {
		t.Fatal(".goreleaser.yaml has no archives or no nfpms")
	}
	for i, a := range cfg.Archives {
		if a.BuildsInfo.MTime != commitDate {
			t.Errorf("archives[%d]: builds_info mtime %q, want %q", i, a.BuildsInfo.MTime, commitDate)
		}
		var srcs []string
		for _, f := range a.Files {
			srcs = append(srcs, f.Src)
			if f.Info.MTime != commitDate {
				t.Errorf("archives[%d]: %s's mtime %q, want %q", i, f.Src, f.Info.MTime, commitDate)
			}
		}
		if !slices.Contains(srcs, "README.md") || !slices.Contains(srcs, "LICENSE") {
			t.Errorf("archives[%d] holds %q, want README.md and LICENSE", i, srcs)
		}
	}
	for i, n := range cfg.NFPMs {
		if n.MTime != commitDate {
			t.Errorf("nfpms[%d]: mtime %q, want %q", i, n.MTime, commitDate)
		}
		for _, c := range n.Contents {
			if c.FileInfo.MTime != commitDate {
				t.Errorf("nfpms[%d]: %s's mtime %q, want %q", i, c.Src, c.FileInfo.MTime, commitDate)
			}
		}
		if len(n.Depends) > 0 || !slices.Equal(n.Suggests, []string{"chromium"}) {
			t.Errorf("nfpms[%d]: dependencies %q, suggests %q; want none, and chromium", i, n.Depends, n.Suggests)
		}
	}
}

// apacheLicenseSHA256 is the SHA-256 of the Apache License 2.0's text as
// the Apache Software Foundation publishes it (LICENSE-2.0.txt).
const apacheLicenseSHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

// TestLicense: LICENSE, which every archive, package and npm package
// carries, is the Apache License 2.0 verbatim, which is what lets tools
// (GitHub's, npm's, scanners) name it.
func TestLicense(t *testing.T) {
	data, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	// A Windows checkout may have turned the line ends into CRLF.
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if sum := fmt.Sprintf("%x", sha256.Sum256(data)); sum != apacheLicenseSHA256 {
		t.Errorf("LICENSE's SHA-256 is %s, not the Apache License 2.0's (%s): keep its text verbatim", sum, apacheLicenseSHA256)
	}
}
