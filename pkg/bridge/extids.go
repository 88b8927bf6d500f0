package bridge

import (
	"fmt"
	"strings"
)

// The extension IDs the daemon accepts (docs/extension.md#pairing). The bundled
// extension's manifest carries a `key`, so Load unpacked and the managed
// browser give it the pinned ID (extension.ID). The Chrome Web Store and
// Edge Add-ons refuse a manifest with a key and assign IDs of their own,
// which are known only once the extension is published there: the daemon
// accepts those named in BUA_EXTENSION_IDS (Config.StoreExtensionIDs), each
// compared exactly as the pinned one is (chrome-extension://ID, the whole
// Origin), never as a prefix or a pattern.

// EnvExtensionIDs names the environment variable that lists the store
// extension IDs the daemon accepts besides the pinned one: comma-separated
// Chrome extension IDs (32 letters a to p).
const EnvExtensionIDs = "BUA_EXTENSION_IDS"

// ExtensionIDLen is a Chrome extension ID's length: 32 letters a to p
// (the first 128 bits of a SHA-256, one letter a nibble).
const ExtensionIDLen = 32

// ValidExtensionID reports whether id is a Chrome extension ID: exactly
// ExtensionIDLen letters, each a to p (lowercase, as Chrome sends it in
// an Origin).
func ValidExtensionID(id string) bool {
	if len(id) != ExtensionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 'a' || id[i] > 'p' {
			return false
		}
	}
	return true
}

// ParseExtensionIDs reads BUA_EXTENSION_IDS's value: IDs separated by
// commas, spaces around each allowed, empty entries (a trailing comma)
// skipped. An entry that is not an extension ID is an error naming it and
// the variable, so a typo never leaves the store's extension locked out
// unexplained.
func ParseExtensionIDs(s string) ([]string, error) {
	var ids []string
	for _, f := range strings.Split(s, ",") {
		id := strings.TrimSpace(f)
		if id == "" {
			continue
		}
		if !ValidExtensionID(id) {
			return nil, fmt.Errorf("%s: %q is not a Chrome extension ID (%d letters a to p, lowercase, as chrome://extensions shows it): fix it, or unset %s", EnvExtensionIDs, clipInput(id), ExtensionIDLen, EnvExtensionIDs)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// ExtensionOrigin is the exact Origin an extension with this ID sends.
func ExtensionOrigin(id string) string { return "chrome-extension://" + id }
