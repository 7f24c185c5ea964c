// Package s3test runs a real S3 server for tests: versitygw (Apache-2.0,
// maintained, S3-compatible enough to check credentials, presigned URLs and
// multipart uploads) on its POSIX backend. scripts/deps builds it once per
// machine, outside the checkout, keyed by version:
//
//	<cache>/versitygw-<Version>/versitygw
//
// where <cache> is $LOUPE_CACHE_DIR, else $XDG_CACHE_HOME/loupe, else
// ~/.cache/loupe (webtest.CacheDir). Where the binary is missing, tests skip
// saying so — unless LOUPE_S3TEST=require or LOUPE_WEBTEST=require (.ci/run
// sets both), where they fail.
//
// One server runs per test process: started by the first Bucket call on a
// free loopback port, with a temporary root directory and random
// credentials, and stopped by Main when the package's tests are done (a
// package using s3test calls Main from its TestMain). Each test gets its own
// fresh bucket, so tests share nothing but the process. Should the test
// binary die without reaching Main's end, the kernel kills the server with
// it (Linux: PR_SET_PDEATHSIG).
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/webtest"
)

// Version is the versitygw release the tests run; scripts/deps builds the
// same (keep the two in step).
const Version = "v1.8.0"

// Region is the region the server is started with.
const Region = "us-east-1"

// Binary is where scripts/deps puts the versitygw binary.
func Binary() (string, error) { return cached("versitygw", Version) }

// cached is where scripts/deps puts a server it builds:
// <cache>/<name>-<version>/<name>.
func cached(name, version string) (string, error) {
	dir, err := webtest.CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name+"-"+version, name), nil
}

// Server is a running S3 server: versitygw, or MinIO (StartMinIO).
type Server struct {
	Endpoint        string
	AccessKeyID     string
	SecretAccessKey string

	name string // versitygw, minio
	dir  string
	cmd  *exec.Cmd
	exit chan struct{}
}

var (
	mainRunning bool
	once        sync.Once
	server      *Server
	startErr    error
)

// Main runs the package's tests, then stops the server if one started, and
// exits with the tests' code. Call it from TestMain:
//
//	func TestMain(m *testing.M) { s3test.Main(m) }
func Main(m *testing.M) {
	mainRunning = true
	code := m.Run()
	if server != nil {
		server.stop()
	}
	os.Exit(code)
}

// Bucket answers the configuration of a new, empty bucket on the test
// process's server, starting the server on first use.
func Bucket(t testing.TB) blob.S3Config {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := Start(t).NewBucket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Start answers the test process's server, starting it on first use, or
// skips (fails where required) the test when versitygw is not installed.
func Start(t testing.TB) *Server {
	t.Helper()
	if !mainRunning {
		t.Fatal("s3test: the package's TestMain must call s3test.Main(m), which stops the server after the tests")
	}
	bin := built(t, "versitygw "+Version, Binary)
	once.Do(func() { server, startErr = start(bin) })
	if startErr != nil {
		t.Fatalf("s3test: %v", startErr)
	}
	return server
}

// built answers the path of a server's binary, or skips the test (fails it
// where required: LOUPE_S3TEST or LOUPE_WEBTEST=require) when it is not
// built.
func built(t testing.TB, what string, binary func() (string, error)) string {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	if _, err := os.Stat(bin); err != nil {
		msg := what + " is not built at " + bin + " (scripts/deps test builds it)"
		if os.Getenv("LOUPE_S3TEST") == "require" || os.Getenv("LOUPE_WEBTEST") == "require" {
			t.Fatal(msg)
		}
		t.Skip("skipped: " + msg)
	}
	return bin
}

// Launch starts a server of the process's own, outside a test (the
// benchmark); the caller stops it with Stop.
func Launch() (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("versitygw %s is not built at %s (scripts/deps test builds it)", Version, bin)
	}
	return start(bin)
}

// Stop ends a server from Launch and removes its files.
func (s *Server) Stop() { s.stop() }

// NewBucket creates an empty bucket and answers its configuration.
func (s *Server) NewBucket(ctx context.Context) (blob.S3Config, error) {
	name := "b" + mustHex(10)
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		return blob.S3Config{}, fmt.Errorf("s3test: create bucket: %w", err)
	}
	return blob.S3Config{Endpoint: s.Endpoint, Region: Region, Bucket: name, PathStyle: true,
		AccessKeyID: s.AccessKeyID, SecretAccessKey: s.SecretAccessKey}, nil
}

// Client is an SDK client of the server with its root credentials.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint:               aws.String(s.Endpoint),
		Region:                     Region,
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(s.AccessKeyID, s.SecretAccessKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// start runs versitygw on a free port, trying again should another
// process take the port between our probe and the server's bind.
func start(bin string) (*Server, error) {
	return startServer("versitygw", func(s *Server, root, port string) *exec.Cmd {
		// The credentials go in the environment, not on the command line,
		// where any user of the machine could read them.
		cmd := exec.Command(bin, "--port", port, "--region", Region, "--quiet", "posix", root)
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKeyID, "ROOT_SECRET_ACCESS_KEY="+s.SecretAccessKey)
		return cmd
	})
}

// startServer runs the command a server's command makes (given its
// credentials, an empty data directory and a loopback address) and waits
// until it answers; three tries, should another process take the port
// between our probe and the server's bind.
func startServer(name string, command func(s *Server, root, port string) *exec.Cmd) (*Server, error) {
	var err error
	for range 3 {
		var s *Server
		if s, err = startOnce(name, command); err == nil {
			return s, nil
		}
	}
	return nil, err
}

func startOnce(name string, command func(s *Server, root, port string) *exec.Cmd) (*Server, error) {
	dir, err := os.MkdirTemp("", "loupe-s3test-")
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "buckets")
	if err := os.Mkdir(root, 0o700); err != nil {
		os.RemoveAll(dir) //nolint:errcheck // best effort
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir) //nolint:errcheck // best effort
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		os.RemoveAll(dir) //nolint:errcheck // best effort
		return nil, err
	}
	defer logFile.Close()
	s := &Server{
		Endpoint:        "http://" + port,
		AccessKeyID:     strings.ToUpper(mustHex(10)),
		SecretAccessKey: mustHex(20),
		name:            name,
		dir:             dir,
		exit:            make(chan struct{}),
	}
	s.cmd = command(s, root, port)
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	s.cmd.SysProcAttr = dieWithParent()
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir) //nolint:errcheck // best effort
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { s.cmd.Wait(); close(s.exit) }() //nolint:errcheck // its log tells
	if err := s.waitReady(20 * time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitReady waits until the server answers HTTP (403 to an unsigned
// request is an answer).
func (s *Server) waitReady(limit time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-s.exit:
			return fmt.Errorf("%s exited at start: %s", s.name, s.logTail())
		default:
		}
		resp, err := client.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
	}
	return fmt.Errorf("%s did not answer within %s: %s", s.name, limit, s.logTail())
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// stop ends the server and removes its files.
func (s *Server) stop() {
	if s.cmd.Process != nil {
		s.cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may be gone
		select {
		case <-s.exit:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill() //nolint:errcheck // it may be gone
			<-s.exit
		}
	}
	os.RemoveAll(s.dir) //nolint:errcheck // a temporary directory
}

// freePort answers a loopback address no one listens on right now.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func mustHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
