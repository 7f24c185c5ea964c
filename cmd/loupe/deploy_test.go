package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The systemd unit passes `systemd-analyze verify` (every directive
// parsed, the command executable — the unit is checked with this test's
// binary in the place of /usr/local/bin/loupe), and its command is
// `loupe serve`.
func TestSystemdUnit(t *testing.T) {
	unit, err := os.ReadFile("../../deploy/systemd/loupe.service")
	if err != nil {
		t.Fatal(err)
	}
	exec1 := regexp.MustCompile(`(?m)^ExecStart=(\S+)(.*)$`).FindSubmatch(unit)
	if exec1 == nil || string(exec1[1]) != "/usr/local/bin/loupe" || strings.TrimSpace(string(exec1[2])) != "serve" {
		t.Fatalf("ExecStart is %q, want /usr/local/bin/loupe serve", exec1)
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed: the unit is checked where systemd is")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	checked := strings.Replace(string(unit), "ExecStart=/usr/local/bin/loupe", "ExecStart="+self, 1)
	path := filepath.Join(dir, "loupe.service")
	if err := os.WriteFile(path, []byte(checked), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	// Warnings that are not the unit's (the host's other units) are
	// ignored; any line naming the unit's file fails.
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "loupe.service") {
			t.Errorf("systemd-analyze: %s", line)
		}
	}
	if err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// The container image installs every package the processing and
// analysis need — the ones scripts/deps installs for `make run` — runs as
// a non-root user and starts `loupe serve`. Built where a container
// builder answers (docker with its daemon, or podman).
func TestContainerRecipe(t *testing.T) {
	recipe, err := os.ReadFile("../../deploy/container/Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	deps, err := os.ReadFile("../../scripts/deps")
	if err != nil {
		t.Fatal(err)
	}
	// What scripts/deps requires before its test and bench profiles.
	var want []string
	sc := bufio.NewScanner(strings.NewReader(string(deps)))
	re := regexp.MustCompile(`\|\| required\+=\(([a-z0-9.+-]+)\)`)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"$profile" = test`) {
			break
		}
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			want = append(want, m[1])
		}
	}
	if len(want) < 10 {
		t.Fatalf("read %d packages from scripts/deps: %v", len(want), want)
	}
	runtime := string(recipe[strings.LastIndex(string(recipe), "\nFROM "):])
	installed := strings.Fields(runtime[strings.Index(runtime, "apt-get install"):strings.Index(runtime, "rm -rf")])
	for _, p := range want {
		if !slices.Contains(installed, p) {
			t.Errorf("the image does not install %s (scripts/deps does)", p)
		}
	}
	for _, line := range []string{"USER loupe", `ENTRYPOINT ["/usr/local/bin/loupe"]`, `CMD ["serve"]`} {
		if !strings.Contains(runtime, "\n"+line+"\n") {
			t.Errorf("the runtime stage lacks %q", line)
		}
	}

	builder := ""
	if p, err := exec.LookPath("podman"); err == nil {
		builder = p
	} else if p, err := exec.LookPath("docker"); err == nil && exec.Command(p, "info").Run() == nil {
		builder = p
	}
	if builder == "" {
		t.Log("no container builder answers here (docker without its daemon, no podman): the image is not built")
		return
	}
	if testing.Short() {
		t.Skip("-short: the image is not built")
	}
	tag := "loupe-test:" + time.Now().Format("20060102150405")
	if out, err := exec.Command(builder, "build", "-f", "../../deploy/container/Containerfile", "-t", tag, "../..").CombinedOutput(); err != nil {
		t.Fatalf("%s build: %v\n%s", builder, err, out)
	}
	defer exec.Command(builder, "rmi", tag).Run() //nolint:errcheck // the test's image
	out, err := exec.Command(builder, "run", "--rm", tag, "help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "serve") {
		t.Fatalf("the image's loupe help: %v\n%s", err, out)
	}
}
