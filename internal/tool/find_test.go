//go:build unix

package tool_test

import (
	"testing"

	"github.com/loupe-mam/loupe/internal/tool"
)

func TestInstalled(t *testing.T) {
	if !tool.Installed("sh") || tool.Installed("loupe-no-such-program") {
		t.Fatal("sh not found, or a program that is not there")
	}
}

// Python finds the interpreter that imports the modules asked for, and
// none for a module nobody has.
func TestPython(t *testing.T) {
	if !tool.Installed("python3") {
		t.Skip("no python3")
	}
	py, err := tool.Python("json", "sqlite3")
	if err != nil || py == "" {
		t.Fatalf("python3 importing json: %q %v", py, err)
	}
	if again, err := tool.Python("json", "sqlite3"); again != py || err != nil {
		t.Errorf("asked again: %q %v, first %q", again, err, py)
	}
	if py, err := tool.Python("loupe_no_such_module"); err == nil {
		t.Errorf("found %s importing loupe_no_such_module", py)
	}
}
