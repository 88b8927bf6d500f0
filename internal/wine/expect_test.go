package wine

import "os"

// expectWine is what the runner says this is: BUA_EXPECT_WINE=1 under
// scripts/test-windows.
func expectWine() bool { return os.Getenv("BUA_EXPECT_WINE") == "1" }
