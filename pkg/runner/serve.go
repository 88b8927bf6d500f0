package runner

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"gopkg.in/yaml.v3"
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
		return nil, fmt.Errorf("serve: %s is not a directory", ReportPath(dir))
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

// checkServe reports, at the `serve:` value n, a folder that is not there
// when the flow loads: lint says so, rather than the run failing later.
func (fs *fileScope) checkServe(n *yaml.Node, dir string) {
	fi, err := os.Stat(fs.flow.Serve)
	switch {
	case err != nil:
		fs.errf(n, "serve: folder %s cannot be read: %v (looked for %s: the path is relative to the flow file)", dir, unwrapPathError(err), ReportPath(fs.flow.Serve))
	case !fi.IsDir():
		fs.errf(n, "serve: %s is a file, not a folder (expected the folder to serve, relative to the flow file)", dir)
	}
}
