package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bua-dev/bua/pkg/dialogs"
	"github.com/bua-dev/bua/pkg/protocol"
	"github.com/bua-dev/bua/pkg/runner/report"
)

// send sends a under the flow's dialog policy (dialogs.Send): a dialog the
// action meets is answered, and each answer recorded in the step's report
// and note.
func (s *State) send(ctx context.Context, a protocol.Action) (json.RawMessage, *protocol.Error) {
	return dialogs.Send(ctx, s.r.Requester, a, s.dialogs, func(d dialogs.Answer) {
		rep := report.DialogReport{Type: d.DialogType, Message: d.Message, How: d.How()}
		s.cur.Dialogs = append(s.cur.Dialogs, rep)
		how := s.dialogs
		if a.Dialogs != "" {
			how = a.Dialogs // the step's own dialogs param
		}
		s.note(fmt.Sprintf("%s %s %q (dialogs: %s)", rep.How, rep.Type, rep.Message, how))
	})
}
