package bridge

import "golang.org/x/sys/windows"

// The errors an accept fails with, as Winsock numbers them: out of
// sockets, out of buffers (Windows' nearest to ENFILE), a connection gone
// before it was accepted, and one that is no lack of anything.
const (
	errnoEMFILE       = windows.WSAEMFILE
	errnoENFILE       = windows.WSAENOBUFS
	errnoECONNABORTED = windows.WSAECONNABORTED
	errnoEINVAL       = windows.WSAEINVAL
)
