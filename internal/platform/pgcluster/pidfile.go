package pgcluster

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// readPostmasterPort reads the port of a running server from its
// postmaster.pid, whose lines are: PID, data directory, start time, port,
// socket directory, listen address, shared memory key, status.
func readPostmasterPort(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return parsePostmasterPort(string(b))
}

func parsePostmasterPort(content string) (int, error) {
	lines := strings.Split(content, "\n")
	if len(lines) < 4 {
		return 0, fmt.Errorf("postmaster.pid has %d lines, want at least 4", len(lines))
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	if err != nil || port <= 0 || port > 65535 {
		return 0, fmt.Errorf("postmaster.pid: bad port %q", lines[3])
	}
	return port, nil
}
