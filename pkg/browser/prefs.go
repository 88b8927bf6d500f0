package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// SetDownloadDir makes the profile at profileDir save downloads into dir
// (created 0700) without a prompt, by merging Chromium's download
// preferences into its Default/Preferences file, which Chromium reads at
// start-up: download.default_directory, download.prompt_for_download false
// and download.directory_upgrade. Other preferences are kept. Call it
// before the browser starts: a running browser rewrites the file.
func SetDownloadDir(profileDir, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("browser: download dir: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return fmt.Errorf("browser: download dir: %w", err)
	}
	path := filepath.Join(profileDir, "Default", "Preferences")
	prefs := map[string]any{}
	switch data, err := os.ReadFile(path); {
	case err == nil:
		if json.Unmarshal(data, &prefs) != nil || prefs == nil {
			prefs = map[string]any{} // a corrupt file: Chromium would reset it too
		}
	case !os.IsNotExist(err):
		return fmt.Errorf("browser: preferences: %w", err)
	}
	dl, _ := prefs["download"].(map[string]any)
	if dl == nil {
		dl = map[string]any{}
	}
	dl["default_directory"] = abs
	dl["prompt_for_download"] = false
	dl["directory_upgrade"] = true
	prefs["download"] = dl
	data, err := json.Marshal(prefs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("browser: preferences: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("browser: preferences: %w", err)
	}
	return nil
}
