package obstacle

import (
	"encoding/json"
	"fmt"
)

// CheckState is a checkable element's state in extract's element list:
// on the wire true, false or "mixed" (the schema's result.element.checked).
// The zero value means the element is not checkable and the field is
// left out.
type CheckState string

// The check states.
const (
	Checked   CheckState = "true"
	Unchecked CheckState = "false"
	Mixed     CheckState = "mixed"
)

// MarshalJSON writes true, false or "mixed".
func (c CheckState) MarshalJSON() ([]byte, error) {
	switch c {
	case Checked:
		return []byte("true"), nil
	case Unchecked:
		return []byte("false"), nil
	case Mixed:
		return []byte(`"mixed"`), nil
	}
	return nil, fmt.Errorf("obstacle: check state %q is not true, false or mixed", string(c))
}

// UnmarshalJSON reads true, false or "mixed"; anything else is an error.
func (c *CheckState) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v {
	case true:
		*c = Checked
	case false:
		*c = Unchecked
	case "mixed":
		*c = Mixed
	default:
		return fmt.Errorf("checked must be true, false or \"mixed\", got %s", b)
	}
	return nil
}
