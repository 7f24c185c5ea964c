package tool

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Installed reports whether program is on PATH (or, a path, executable).
func Installed(program string) bool {
	_, err := exec.LookPath(program)
	return err == nil
}

var pythons = struct {
	sync.Mutex
	found map[string]string // by the modules it imports
}{found: map[string]string{}}

// Python is the interpreter that imports modules: Debian's /usr/bin/python3
// first, the one Debian's python3-* packages are built for (a python3
// earlier on PATH, pyenv's or a virtualenv's, usually lacks them), then
// python3 on PATH. Found once; not finding one is asked again next time
// (the packages may have been installed since).
func Python(modules ...string) (string, error) {
	key := strings.Join(modules, ", ")
	pythons.Lock()
	defer pythons.Unlock()
	if p, ok := pythons.found[key]; ok {
		return p, nil
	}
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil && p != candidates[0] {
		candidates = append(candidates, p)
	}
	for _, p := range candidates {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := Run(ctx, Cmd{Program: p, Args: []string{"-c", "import " + key}})
		cancel()
		if err == nil {
			pythons.found[key] = p
			return p, nil
		}
	}
	return "", fmt.Errorf("no python3 imports %s", key)
}
