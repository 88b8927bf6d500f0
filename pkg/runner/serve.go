package runner

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/bua-dev/bua/pkg/runner/report"
)

// Server is a static folder served on a free loopback port for one run.
type Server struct {
	// URL is http://127.0.0.1:PORT, without a trailing slash.
	URL string
	srv *http.Server
	ln  net.Listener
}

// Serve starts serving dir with net/http's FileServer on 127.0.0.1:0.
// Close it when the run ends. Its error is the flow's, in the flow's
// report, so it names dir slash-separated (ReportPath).
func Serve(dir string) (*Server, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("serve: %s is not a directory", report.ReportPath(dir))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, srv: &http.Server{Handler: http.FileServer(http.Dir(dir))}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server and its connections.
func (s *Server) Close() error { return s.srv.Close() }
