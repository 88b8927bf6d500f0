package bridge

import (
	"context"
	"slices"

	"github.com/bua-dev/bua/pkg/handoff"
	"github.com/bua-dev/bua/pkg/protocol"
)

// HandoffGate says whether a page can be handed to a person now
// (docs/handoff.md#handing-a-page-to-a-person), from BUA_HANDOFF
// (getenv) and the browser that serves sel, which status reports: a
// person's Chrome or a headful managed browser can be handed over; a
// headless managed browser cannot, since nobody sees it. A status error's
// message is the reason, as it is. The CLI's
// commands and flows, and bua mcp's handoff action, all ask it.
func HandoffGate(getenv func(string) string, sel Selection, status func(context.Context) (Status, *protocol.Error)) handoff.Gate {
	return func(ctx context.Context) error {
		mode, err := handoff.ParseMode(getenv("BUA_HANDOFF"))
		if err != nil {
			return &handoff.Unavailable{Reason: err.Error()}
		}
		switch mode {
		case handoff.ModeOff:
			return &handoff.Unavailable{Reason: "BUA_HANDOFF=off"}
		case handoff.ModeForce:
			return nil
		}
		st, berr := status(ctx)
		if berr != nil {
			return &handoff.Unavailable{Reason: berr.Message}
		}
		if !IsManaged(string(sel)) {
			person := slices.ContainsFunc(st.Connections, func(cs ConnStatus) bool {
				return cs.Kind == KindUser && (sel == SelectAuto || sel == "" || cs.Browser == string(sel))
			})
			if person || sel != SelectAuto && sel != "" {
				return nil // the person's own Chrome
			}
		}
		name := launchName(sel)
		for _, m := range append(st.ManagedBrowsers, st.Managed) {
			if m.Name == name && m.Running && m.Options.Headless {
				return &handoff.Unavailable{Reason: "the managed browser " + name + " runs headless, so nobody can see it; start a visible one with `bua browser start`, or pair your Chrome (`bua pair`)"}
			}
		}
		return nil
	}
}
