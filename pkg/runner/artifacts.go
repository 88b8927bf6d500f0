package runner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bua-dev/bua/pkg/protocol"
)

// saveArtifacts saves, for the step that failed, a screenshot of the
// current tab and the last extract's markdown (masked) into r.Artifacts,
// and names them in the step's report. A failure to capture is noted, not
// fatal: the original error stays the flow's outcome.
func (s *State) saveArtifacts(ctx context.Context, cause error) {
	dir := s.r.Artifacts
	if dir == "" {
		return
	}
	if classify(cause) == StatusUnavailable {
		return
	}
	var failed *StepReport
	for i := len(s.rec.Steps) - 1; i >= 0; i-- {
		if st := s.rec.Steps[i]; st.Status != StatusPassed && st.Status != StatusSkipped && st.Error != nil {
			failed = st
			break
		}
	}
	if failed == nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.rec.HookErrors = append(s.rec.HookErrors, "artifacts: "+err.Error())
		return
	}
	base := fmt.Sprintf("%s-step%s", slug(s.flow.Name), strings.ReplaceAll(failed.Path, ".", "_"))
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	shot := protocol.Screenshot(false)
	if s.shared.tab != nil {
		shot = shot.OnTab(*s.shared.tab)
	}
	if raw, berr := s.r.Requester.Request(actx, shot); berr == nil {
		var res protocol.ScreenshotResult
		if json.Unmarshal(raw, &res) == nil {
			if _, b64, ok := strings.Cut(res.DataURL, ","); ok {
				if img, err := base64.StdEncoding.DecodeString(b64); err == nil {
					path := filepath.Join(dir, base+".jpg")
					if os.WriteFile(path, img, 0o644) == nil {
						failed.Artifacts = append(failed.Artifacts, path)
					}
				}
			}
		}
	} else {
		failed.Note = strings.TrimPrefix(failed.Note+"; screenshot failed: "+berr.Error(), "; ")
	}
	if s.shared.lastMarkdown != "" {
		path := filepath.Join(dir, base+".md")
		if os.WriteFile(path, []byte(s.shared.masker.Mask(s.shared.lastMarkdown)), 0o644) == nil {
			failed.Artifacts = append(failed.Artifacts, path)
		}
	}
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
