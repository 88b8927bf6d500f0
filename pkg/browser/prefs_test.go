package browser

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestSetDownloadDirKeepsOtherPreferences(t *testing.T) {
	profile := t.TempDir()
	prefsPath := filepath.Join(profile, "Default", "Preferences")
	if err := os.MkdirAll(filepath.Dir(prefsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefsPath, []byte(`{"intl":{"accept_languages":"fr"},"download":{"prompt_for_download":true,"extensions_to_open":"pdf"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "downloads")
	if err := SetDownloadDir(profile, dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("download dir not created: %v", err)
	}
	var got map[string]any
	data, _ := os.ReadFile(prefsPath)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	dl := got["download"].(map[string]any)
	if dl["default_directory"] != dir || dl["prompt_for_download"] != false || dl["directory_upgrade"] != true {
		t.Errorf("download prefs = %v", dl)
	}
	if dl["extensions_to_open"] != "pdf" || got["intl"].(map[string]any)["accept_languages"] != "fr" {
		t.Errorf("other preferences lost: %s", data)
	}
}

func TestSetDownloadDirFreshProfile(t *testing.T) {
	profile := t.TempDir()
	if err := SetDownloadDir(profile, filepath.Join(profile, "dl")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(profile, "Default", "Preferences"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Download map[string]any }
	if err := json.Unmarshal(data, &got); err != nil || got.Download["default_directory"] != filepath.Join(profile, "dl") {
		t.Fatalf("prefs %s (%v)", data, err)
	}
}
