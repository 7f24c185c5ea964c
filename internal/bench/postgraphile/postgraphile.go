// Package postgraphile runs PostGraphile, the reference `make bench` compares
// Loupe with: it installs the pinned npm package into a cache directory,
// starts it read-only against a Loupe database and gives the GraphQL
// documents that match Loupe's benchmark scenarios.
//
// PostGraphile reflects the tables as they are, so there is no access
// control, no recycle-bin filter on items and no tenant check beyond the
// tenant_id the queries name: it is the "plain reflection" baseline.
package postgraphile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Version is the PostGraphile release the benchmark issue names.
const Version = "4.14.1"

// Package is what Install asks npm for.
const Package = "postgraphile@" + Version

// PoolSize is PostGraphile's Postgres pool (its --max-pool-size).
const PoolSize = 10

var (
	// ErrNoNPM: npm (or node) is not on PATH.
	ErrNoNPM = errors.New("postgraphile: npm/node not found on PATH")
	// ErrRegistry: npm could not fetch the package (registry unreachable,
	// package not found, ...). Tests skip on it.
	ErrRegistry = errors.New("postgraphile: npm registry error")
)

// marker records a completed install; its content is the installed version.
const marker = ".loupe-postgraphile-installed"

// Install installs postgraphile@4.14.1 (and nothing else) with npm into dir
// (a scratch/cache dir, e.g. ./.loupe/bench/postgraphile) unless it is
// already there; it returns the path of the postgraphile CLI entry
// (node_modules/postgraphile/cli.js, to run with node; Start does). npm's
// output goes to log (nil: discarded). Concurrent Installs into one dir are
// serialised by a lock file.
func Install(ctx context.Context, dir string, log io.Writer) (cli string, err error) {
	if log == nil {
		log = io.Discard
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	cli = filepath.Join(dir, "node_modules", "postgraphile", "cli.js")
	if installed(dir, cli) {
		return cli, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoNPM, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoNPM, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	defer unlock()
	if installed(dir, cli) { // another process finished it while we waited
		return cli, nil
	}
	// A package.json of its own keeps npm from walking up to (and changing)
	// an enclosing project.
	pkg := filepath.Join(dir, "package.json")
	if _, err := os.Stat(pkg); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(pkg, []byte(`{"name":"loupe-bench-postgraphile","private":true}`+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	os.Remove(filepath.Join(dir, marker))
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, npm, "install",
		"--prefix", dir, "--save-exact", "--no-audit", "--no-fund", "--ignore-scripts",
		"--no-progress", "--loglevel=warn", Package)
	cmd.Dir = dir
	// One writer for both streams: exec then writes from one goroutine at a
	// time (two MultiWriters over one buffer raced).
	w := &syncWriter{w: io.MultiWriter(log, &out)}
	cmd.Stdout, cmd.Stderr = w, w
	fmt.Fprintf(log, "postgraphile: npm install %s into %s\n", Package, dir)
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(tail(out.String(), 2000))
		if ctx.Err() != nil {
			return "", fmt.Errorf("postgraphile: npm install %s: %w", Package, ctx.Err())
		}
		if registryFailure(msg) {
			return "", fmt.Errorf("%w: npm install %s: %v\n%s", ErrRegistry, Package, err, msg)
		}
		return "", fmt.Errorf("postgraphile: npm install %s: %v\n%s", Package, err, msg)
	}
	if got := installedVersion(dir); got != Version {
		return "", fmt.Errorf("postgraphile: npm installed version %q, want %s", got, Version)
	}
	if _, err := os.Stat(cli); err != nil {
		return "", fmt.Errorf("postgraphile: installed, but no CLI: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, marker), []byte(Version+"\n"), 0o644); err != nil {
		return "", err
	}
	return cli, nil
}

func installed(dir, cli string) bool {
	b, err := os.ReadFile(filepath.Join(dir, marker))
	if err != nil || strings.TrimSpace(string(b)) != Version || installedVersion(dir) != Version {
		return false
	}
	_, err = os.Stat(cli)
	return err == nil
}

func installedVersion(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "postgraphile", "package.json"))
	if err != nil {
		return ""
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return p.Version
}

// registryFailure tells npm's network and "no such package/version" errors
// from others (a broken node, a full disk, ...).
func registryFailure(out string) bool {
	for _, s := range []string{
		"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH",
		"EHOSTUNREACH", "E404", "E403", "E401", "E500", "E502", "E503", "ETARGET",
		"network", "registry", "request to http", "self signed certificate", "UNABLE_TO_GET_ISSUER_CERT",
	} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

func lockDir(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("postgraphile: lock %s: %w", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Args are the PostGraphile CLI options Start uses (after the connection,
// host and port): the public schema, read-only (no default mutations), both
// Relay connections and plain lists, JSON as JSON, no GraphiQL, no watch, no
// query log, stack traces off.
var Args = []string{
	"--schema", "public",
	"--disable-default-mutations",
	"--simple-collections", "both",
	"--dynamic-json",
	"--no-setof-functions-contain-nulls",
	"--disable-graphiql",
	"--disable-query-log",
	"--max-pool-size", strconv.Itoa(PoolSize),
}

// Start runs PostGraphile on 127.0.0.1:port against dbURL (a postgres://
// URL; PostGraphile does not read key=value strings), schema public, with
// Args and NODE_ENV=production, waits until it answers a GraphQL query and
// returns a stop func that ends it (SIGTERM, then SIGKILL after 5s). ctx
// bounds the start only; the server runs until stop is called. Its output
// goes to log (nil: discarded); a failed start's error quotes its tail.
func Start(ctx context.Context, cli, dbURL string, port int, log io.Writer) (stop func() error, err error) {
	if log == nil {
		log = io.Discard
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNPM, err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("postgraphile: %s is already in use", addr)
	}
	args := append([]string{cli,
		"--connection", dbURL,
		"--host", "127.0.0.1",
		"--port", strconv.Itoa(port),
	}, Args...)
	cmd := exec.Command(node, args...)
	cmd.Env = append(os.Environ(), "NODE_ENV=production")
	out := &tailWriter{max: 4000}
	w := &syncWriter{w: io.MultiWriter(log, out)}
	cmd.Stdout, cmd.Stderr = w, w
	// Its own process group, so that stop reaches any workers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("postgraphile: start: %w", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() {
			select {
			case <-exited:
				return
			default:
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
				stopErr = fmt.Errorf("postgraphile: killed after SIGTERM timed out")
			}
		})
		return stopErr
	}

	url := "http://" + addr + "/graphql"
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			return nil, fmt.Errorf("postgraphile exited before answering (%v):\n%s", waitErr, out.String())
		case <-ctx.Done():
			stop()
			return nil, fmt.Errorf("postgraphile: waiting for %s: %w\n%s", url, ctx.Err(), out.String())
		case <-deadline.C:
			stop()
			return nil, fmt.Errorf("postgraphile: no answer on %s after 2m:\n%s", url, out.String())
		case <-tick.C:
			if answers(ctx, client, url) {
				return stop, nil
			}
		}
	}
}

func answers(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(`{"query":"{__typename}"}`))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Typename string `json:"__typename"`
		}
	}
	return resp.StatusCode == 200 && json.NewDecoder(resp.Body).Decode(&body) == nil && body.Data.Typename == "Query"
}

// PageSize is the number of items in one grid page.
const PageSize = 50

// ByIDQuery is Loupe's GET /api/v1/items/{id} record as PostGraphile
// serves it: every column of Loupe's item record (store.Item), and the
// folderParents that Loupe aggregates from item_folders.
const ByIDQuery = `query ItemByID($tenantId: UUID!, $id: UUID!) {
  itemByTenantIdAndId(tenantId: $tenantId, id: $id) {
    tenantId
    id
    itemType
    title
    originalFileName
    externalId
    createdBy
    createdOn
    modifiedOn
    mediaCreatedOn
    mediaType
    mediaSize
    frameCount
    metadataFormId
    metadataFormData
    metadataVersion
    technicalMetadata
    geoLocation
    customIcons
    languageCode
    transcodingState
    transcriptionEnabled
    translationEnabled
    celebrityDetectionEnabled
    labelDetectionEnabled
    personDetectionEnabled
    textDetectionEnabled
    createUnknownPersons
    hasRelations
    archivedOn
    deletedOn
    media
    mediaUsage
    uploadLockOwner
    uploadLockedOn
    transcriptLastUpdated
    itemFoldersByTenantIdAndItemIdList(orderBy: POSITION_ASC) {
      folderId
    }
  }
}`

// GridQuery is the nested query a frontend's grid sends: one page of a
// folder's live content in creation (id) order, as Loupe's grid scenario
// pages items(filter: {folderId}, orderBy: CREATED_ASC), with totalCount
// and pageInfo, and for
// each item its folders' names, its 3 latest comments and its relations'
// related item titles.
const GridQuery = `query FolderGrid($tenantId: UUID!, $folderId: UUID!, $first: Int!, $offset: Int!) {
  itemByTenantIdAndId(tenantId: $tenantId, id: $folderId) {
    id
    title
    itemFoldersByTenantIdAndFolderId(
      condition: {childDeleted: false}
      orderBy: ITEM_ID_ASC
      first: $first
      offset: $offset
    ) {
      totalCount
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
      nodes {
        itemByTenantIdAndItemId {
          id
          itemType
          title
          originalFileName
          createdOn
          modifiedOn
          mediaType
          hasRelations
          itemFoldersByTenantIdAndItemId(orderBy: POSITION_ASC) {
            nodes {
              itemByTenantIdAndFolderId {
                id
                title
              }
            }
          }
          commentsByTenantIdAndItemId(orderBy: ID_DESC, first: 3) {
            totalCount
            nodes {
              id
              type
              text
              authorId
              createdOn
            }
          }
          itemRelationsByTenantIdAndItemId {
            nodes {
              relationType
              itemByTenantIdAndRelatedItemId {
                id
                title
              }
            }
          }
        }
      }
    }
  }
}`

// Queries returns the GraphQL documents, with their variables, equivalent
// to Loupe's scenarios: byID looks an item up by its primary key (tenant_id,
// id); grid reads the page of PageSize items at offset of a folder. POST
// them to /graphql as {"query": query, "variables": vars}.
func Queries() (byID func(tenantID, itemID string) (query string, vars map[string]any), grid func(tenantID, folderID string, offset int) (query string, vars map[string]any)) {
	byID = func(tenantID, itemID string) (string, map[string]any) {
		return ByIDQuery, map[string]any{"tenantId": tenantID, "id": itemID}
	}
	grid = func(tenantID, folderID string, offset int) (string, map[string]any) {
		return GridQuery, map[string]any{"tenantId": tenantID, "folderId": folderID, "first": PageSize, "offset": offset}
	}
	return byID, grid
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// syncWriter serialises the child's stdout and stderr into one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
