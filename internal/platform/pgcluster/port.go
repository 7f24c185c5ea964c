package pgcluster

import "net"

// freePort asks the kernel for a free TCP port on 127.0.0.1. Another process
// can take it before the server binds it; Start retries for that.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
