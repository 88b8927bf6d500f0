package protocol

import "strings"

// Password reports whether the element is a password field: inputType
// password, or autocomplete ending in password or one-time-code
// (result.describe).
func (d DescribeResult) Password() bool {
	ac := d.Autocomplete
	return d.InputType == "password" || strings.HasSuffix(ac, "password") || strings.HasSuffix(ac, "one-time-code")
}
