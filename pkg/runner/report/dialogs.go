package report

import ()

// DialogReport is one dialog the flow's policy answered, in the step
// that met it.
type DialogReport struct {
	Type    string `json:"type"` // alert, confirm, prompt or beforeunload
	Message string `json:"message"`
	How     string `json:"how"` // accepted or dismissed
}
