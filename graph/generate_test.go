package graph_test

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// generatedFiles are the patterns of what `go generate ./graph` writes
// (gqlgen.yml, then postgen's patches of the exec files): the exec code,
// one file per schema file (graph/schema/*.graphqls) plus gqlgen's
// root_.generated.go and prelude.generated.go, the models, and the
// resolvers, one file per schema file.
var generatedFiles = []string{
	"graph/*.generated.go",
	"graph/model/models_gen.go",
	"resolvers/*.resolvers.go",
}

// generatedDirs are where gqlgen may add files.
var generatedDirs = []string{"graph", "graph/model", "resolvers"}

// TestGeneratedCodeIsCurrent regenerates the GraphQL code in a copy of the
// module and fails when it differs from what is checked in: a schema,
// gqlgen.yml or autobound store type changed without `make generate`.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerating the GraphQL code takes seconds; skipped with -short")
	}
	root := moduleRoot(t)
	dir := t.TempDir()
	copyModule(t, root, dir)
	before := goFiles(t, dir)

	// The same pipeline as `make generate` (graph/generate.go).
	cmd := exec.Command(goBinary(t), "generate", "./graph")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"),
		"GOPROXY=off", // the module cache or nothing: no network
		"GOWORK=off",
		"GOTOOLCHAIN=local",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte("GOPROXY=off")) {
			t.Skipf("gqlgen or its dependencies are not in the module cache (run `go mod download`):\n%s", out)
		}
		t.Fatalf("go generate ./graph: %v\n%s", err, out)
	}

	var stale []string
	for _, f := range matching(t, root, generatedFiles) {
		want, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("gqlgen did not write %s: %v", f, err)
		}
		if !bytes.Equal(got, want) {
			stale = append(stale, f+" differs"+firstDifference(want, got))
		}
	}
	for _, f := range goFiles(t, dir) {
		if !slices.Contains(before, f) {
			stale = append(stale, f+" is new")
		}
	}
	if len(stale) > 0 {
		t.Fatalf("generated code is stale: run `make generate`\n  %s", strings.Join(stale, "\n  "))
	}
}

// moduleRoot walks up from the working directory to the one holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// goBinary is the go command; go test puts its toolchain's first on PATH.
func goBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run gqlgen with")
	}
	return p
}

// copyModule copies the module's source tree, without version control, local
// data, build output (.gitignore) or anything else that is not a regular file.
func copyModule(t *testing.T, from, to string) {
	t.Helper()
	skipDirs := map[string]bool{".git": true, ".loupe": true, "bin": true, "node_modules": true}
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() || rel == "loupe" {
			return nil // the built server binary
		}
		for _, ext := range []string{".test", ".out", ".prof"} {
			if strings.HasSuffix(d.Name(), ext) {
				return nil
			}
		}
		return copyFile(path, filepath.Join(to, rel))
	})
	if err != nil {
		t.Fatalf("copy module: %v", err)
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// matching lists the files under root that match patterns, relative to
// root, with forward slashes; a pattern that matches nothing is an error.
func matching(t *testing.T, root string, patterns []string) []string {
	t.Helper()
	var files []string
	for _, p := range patterns {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 {
			t.Fatalf("no generated file %s checked in", p)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(root, m)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}

// goFiles lists the Go files directly in the directories gqlgen writes to.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, d := range generatedDirs {
		matches, err := filepath.Glob(filepath.Join(root, d, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(root, m)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}

// firstDifference describes the first line where got differs from want.
func firstDifference(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			return "; first at line " + strconv.Itoa(i+1) + ":\n    checked in: " + wl + "\n    generated:  " + gl
		}
	}
	return ""
}
