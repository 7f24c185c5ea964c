package rest_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/storage/ingest"
	"github.com/loupe-mam/loupe/internal/storage/sources"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/server"
)

const (
	icPath = "/ingest/api/v1/ingestStorageConfigs"
	gwPath = "/config/api/v1/configs/gateway"
)

// The keys of spec 2.14.
var icKeys = strings.Fields(`id title ingestConfigType isDisabled storageProvider sourceBucket sourceKeyPrefix
sourceEndpoint accessType externalId accessKey cloudAccountId areCredentialsSaved ingestFileExtensions ingestFileTags
ingestIfAnyTagsMatch highresFolder targetFolder targetFolderRemoveSourcePrefix requireSidecar sidecarParser
sidecarFileName confidence sourceLastModified analyticConfig enableObjAcceleration isProxyOnlyIngestConfig
defaultMetadata defaultTimedMetadata scanStorageState deleteEnabled visibleTo visibleToGroupList skipProcessing tenantId`)

// The keys 2.14 requires in a create response (the others are null).
var icRequired = strings.Fields(`accessType analyticConfig deleteEnabled enableObjAcceleration id ingestConfigType
isDisabled sourceBucket sourceEndpoint sourceKeyPrefix storageProvider tenantId title`)

// The keys of 2.15's default upload location and gateway location.
var (
	dulKeys = strings.Fields(`id name areCredentialsSaved type pathPrefix deleteEnabled accessType externalId`)
	gwlKeys = strings.Fields(`id modifiedOn endpoint bucketName accessKey deleteEnabled gatewayId gatewayName
lastObjServerKeysUploadedAt`)
	gwKeys = strings.Fields(`id name endpoint bucketName pathPrefix accessKey areCredentialsSaved deleteEnabled
lastObjServerKeysUploadedAt createdOn modifiedOn`)
)

// syncBuffer is a log sink the server writes from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// ingestServer is a server whose log the test reads, scanning pages of
// pageSize keys.
func ingestServer(t *testing.T, pageSize int) (*loupetest.API, *syncBuffer) {
	log := &syncBuffer{}
	api := loupetest.New(t, func(c *server.Config) {
		c.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.IngestScan = ingest.ScanOptions{PageSize: pageSize}
	})
	t.Cleanup(func() {
		if t.Failed() {
			for _, l := range strings.Split(log.String(), "\n") {
				if strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") {
					t.Log(l)
				}
			}
		}
	})
	return api, log
}

// putObjects writes the objects (key → body) into the bucket.
func putObjects(t testing.TB, bucket string, objs map[string]string) {
	t.Helper()
	client := s3test.Start(t).Client()
	for k, v := range objs {
		if _, err := client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(k),
			Body: strings.NewReader(v)}); err != nil {
			t.Fatalf("put %s: %v", k, err)
		}
	}
}

func icBody(cfg blob.S3Config, extra map[string]any) map[string]any {
	b := map[string]any{
		"title": "Camera drops", "sourceBucket": cfg.Bucket, "sourceKeyPrefix": "in",
		"sourceEndpoint": cfg.Endpoint, "accessKey": cfg.AccessKeyID, "secretKey": cfg.SecretAccessKey,
	}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
			continue
		}
		b[k] = v
	}
	return b
}

// waitScan waits for the configuration's scan to end and answers it.
func waitScan(t *testing.T, c *loupetest.Client, id string) map[string]any {
	t.Helper()
	return waitScanFor(t, c, id, 30*time.Second)
}

// waitScanFor is waitScan with a limit of its own.
func waitScanFor(t *testing.T, c *loupetest.Client, id string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		got := c.Get(t, icPath+"/"+id).Status(http.StatusOK).Object()
		if st, _ := got["scanStorageState"].(map[string]any); st != nil && (st["state"] == "complete" || st["state"] == "failed") {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("scan did not end: %v", got["scanStorageState"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// scan asks for a scan and waits for it to complete.
func scan(t *testing.T, c *loupetest.Client, id string) map[string]any {
	t.Helper()
	c.Post(t, icPath+"/"+id+"/scan", nil).Status(http.StatusOK)
	st := waitScan(t, c, id)
	if st["state"] != "complete" {
		t.Fatalf("scan: %v", st)
	}
	return st
}

// ingestedItems answers the tenant's ingested items by key.
func ingestedItems(t *testing.T, api *loupetest.API, tenantID string) map[string]string {
	t.Helper()
	var rows []struct {
		Key string `db:"key"`
		ID  string `db:"item_id"`
	}
	if err := api.DB.Select(&rows, `SELECT DISTINCT key, item_id::text FROM ingested_objects WHERE tenant_id = $1`, tenantID); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		if prev, ok := out[r.Key]; ok && prev != r.ID {
			t.Fatalf("key %s became two items", r.Key)
		}
		out[r.Key] = r.ID
	}
	return out
}

func keysSorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Ingest storage configurations (2.14): create, list, shapes, errors,
// credentials never answered or logged, tenancy.
func TestIngestStorageConfigs(t *testing.T) {
	cfg := s3test.Bucket(t)
	secret := cfg.SecretAccessKey
	api, log := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)

	// Without a body: the spec's 500.
	a.Post(t, icPath, nil).Envelope(http.StatusInternalServerError, "Expected body")
	a.Post(t, icPath, "").Envelope(http.StatusInternalServerError, "Expected body")

	resp := a.Post(t, icPath, icBody(cfg, nil)).Status(http.StatusOK)
	noSecret(t, "create answer", resp.Body, secret)
	got := resp.Object()
	sameKeys(t, "ingest config", got, icKeys)
	for _, k := range icKeys {
		if slices.Contains(icRequired, k) {
			if got[k] == nil {
				t.Errorf("create answer: required %s is null", k)
			}
		} else if k != "accessKey" && k != "areCredentialsSaved" && got[k] != nil {
			t.Errorf("create answer: %s = %v, want null", k, got[k])
		}
	}
	if got["sourceKeyPrefix"] != "in/" || got["storageProvider"] != "obj_native" || got["accessType"] != "key-user" ||
		got["ingestConfigType"] != "ingest_media" || got["tenantId"] != a.TenantID || got["areCredentialsSaved"] != true ||
		got["accessKey"] != cfg.AccessKeyID {
		t.Fatalf("created: %v", got)
	}
	sameJSON(t, "analyticConfig", got["analyticConfig"], map[string]any{"textDetectionEnabled": false,
		"labelDetectionEnabled": false, "personDetectionEnabled": false, "celebrityDetectionEnabled": false,
		"transcriptionEnabled": false})
	id := got["id"].(string)
	var sealed []byte
	if err := api.DB.Get(&sealed, `SELECT secret_sealed FROM ingest_configs WHERE id = $1`, id); err != nil || bytes.Contains(sealed, []byte(secret)) {
		t.Fatalf("sealed column: %v", err)
	}

	var list []map[string]any
	lr := a.Get(t, icPath).Status(http.StatusOK)
	noSecret(t, "list", lr.Body, secret)
	lr.JSON(&list)
	if len(list) != 1 || list[0]["id"] != id {
		t.Fatalf("list: %v", list)
	}
	sameKeys(t, "listed config", list[0], icKeys)

	// Bad creates: 400 naming the problem; a failed probe names S3's code.
	a.Post(t, icPath, icBody(cfg, map[string]any{"title": nil})).Envelope(http.StatusBadRequest, "title is required")
	a.Post(t, icPath, icBody(cfg, map[string]any{"secretKey": nil})).Envelope(http.StatusBadRequest,
		"secretKey is required with accessType key-user")
	a.Post(t, icPath, icBody(cfg, map[string]any{"storageProvider": "gcs"})).Status(http.StatusBadRequest)
	a.Post(t, icPath, icBody(cfg, map[string]any{"ingestFileExtensions": "mp4;mov"})).Status(http.StatusBadRequest)
	a.Post(t, icPath, icBody(cfg, map[string]any{"bogus": 1})).Status(http.StatusBadRequest)
	a.Post(t, icPath, icBody(cfg, map[string]any{"defaultMetadata": map[string]any{"formData": map[string]any{"default_description": 5}}})).
		Status(http.StatusBadRequest)
	wrong := a.Post(t, icPath, icBody(cfg, map[string]any{"secretKey": "wrong-secret-0123456789"})).Status(http.StatusBadRequest)
	env := wrong.Envelope(http.StatusBadRequest, "")
	if p, _ := env["payload"].(map[string]any); p == nil || p["key"] != "SignatureDoesNotMatch" {
		t.Fatalf("wrong secret: %v", env)
	}
	noSecret(t, "wrong secret answer", wrong.Body, "wrong-secret-0123456789")
	env = a.Post(t, icPath, icBody(cfg, map[string]any{"sourceBucket": "no-such-bucket-x"})).Envelope(http.StatusBadRequest, "")
	if p, _ := env["payload"].(map[string]any); p == nil || p["key"] != "NoSuchBucket" {
		t.Fatalf("missing bucket: %v", env)
	}

	// assume-role: kept and checked in shape (no STS here to probe).
	ar := a.Post(t, icPath, icBody(cfg, map[string]any{"secretKey": nil, "accessType": "assume-role",
		"accessKey": "arn:aws:iam::123456789012:role/loupe-ingest", "externalId": "ext-123"})).Status(http.StatusOK).Object()
	if ar["accessType"] != "assume-role" || ar["externalId"] != "ext-123" || ar["areCredentialsSaved"] != true {
		t.Fatalf("assume-role: %v", ar)
	}
	a.Post(t, icPath, icBody(cfg, map[string]any{"secretKey": nil, "accessType": "assume-role",
		"accessKey": "not-an-arn", "externalId": "ext-123"})).Status(http.StatusBadRequest)
	// Its scan fails with a reason (AWS STS is not reachable from here).
	a.Post(t, icPath+"/"+ar["id"].(string)+"/scan", nil).Status(http.StatusOK)
	if st := waitScan(t, a, ar["id"].(string)); st["state"] != "failed" || st["message"] == "" {
		t.Fatalf("assume-role scan: %v", st)
	}

	// Another tenant's configuration answers like a missing one.
	b.Get(t, icPath+"/"+id).Envelope(http.StatusNotFound, "The server can not find requested resource.")
	b.Post(t, icPath+"/"+id+"/scan", nil).Envelope(http.StatusNotFound, "The server can not find requested resource.")
	b.Delete(t, icPath+"/"+id).Envelope(http.StatusNotFound, "The server can not find requested resource.")
	b.Post(t, "/ingest/api/v1/ingestFile", map[string]any{"ingestStorageConfigId": id, "key": "in/a.mp4"}).
		Envelope(http.StatusNotFound, "The server can not find requested resource.")
	var bl []any
	b.Get(t, icPath).Status(http.StatusOK).JSON(&bl)
	if len(bl) != 0 {
		t.Fatalf("other tenant lists %v", bl)
	}
	a.Get(t, icPath+"/not-a-uuid").Envelope(http.StatusNotFound, "The server can not find requested resource.")
	// Users may not read or write them.
	u.Get(t, icPath).Status(http.StatusForbidden)
	u.Post(t, icPath, icBody(cfg, nil)).Status(http.StatusForbidden)

	// GraphQL: the same resolvers.
	var gq struct {
		IngestStorageConfigs []map[string]any `json:"ingestStorageConfigs"`
	}
	a.GraphQL(t, `{ ingestStorageConfigs { id title scanStorageState { state } areCredentialsSaved } }`, nil).OK(&gq)
	if len(gq.IngestStorageConfigs) != 2 {
		t.Fatalf("graphql list: %v", gq)
	}

	// The spec's absent paths stay absent.
	a.Get(t, "/api/v1/ingestStorageConfigs").Status(http.StatusNotFound)
	a.Get(t, "/api/v1/upload/locations").Status(http.StatusNotFound)
	a.Post(t, "/config/api/v1/config/defaultUploadLocation", map[string]any{}).Status(http.StatusNotFound)

	a.Delete(t, icPath+"/"+id).Status(http.StatusOK)
	a.Get(t, icPath+"/"+id).Status(http.StatusNotFound)

	if strings.Contains(log.String(), secret) {
		t.Fatal("the server log holds the secret key")
	}
}

// A scan creates one item per new object, once; filters, target folders,
// default metadata; a changed object becomes a new version.
func TestIngestScan(t *testing.T) {
	cfg := s3test.Bucket(t)
	putObjects(t, cfg.Bucket, map[string]string{
		"in/a.mp4": "a", "in/b.MOV": "b", "in/sub/c.mp4": "c", "in/sub/deep/d.mp4": "d",
		"in/notes.txt": "n", "in/hi/a.mp4": "A", "other/z.mp4": "z",
	})
	api, log := ingestServer(t, 2)
	a := api.Tenant(t, "a")
	got := a.Post(t, icPath, icBody(cfg, map[string]any{
		"ingestFileExtensions": "mp4, mov", "highresFolder": "in/hi", "targetFolder": "/Ingest/Cams",
		"targetFolderRemoveSourcePrefix": true,
		"defaultMetadata":                map[string]any{"formData": map[string]any{"default_description": "from the bucket"}},
		"analyticConfig":                 map[string]any{"transcriptionEnabled": true},
	})).Status(http.StatusOK).Object()
	id := got["id"].(string)
	if got["highresFolder"] != "in/hi/" || got["targetFolder"] != "/Ingest/Cams" {
		t.Fatalf("created: %v", got)
	}

	st := scan(t, a, id)
	items := ingestedItems(t, api, a.TenantID)
	if want := []string{"in/a.mp4", "in/b.MOV", "in/sub/c.mp4", "in/sub/deep/d.mp4"}; !slices.Equal(keysSorted(items), want) {
		t.Fatalf("ingested %v, want %v (scan %v)", keysSorted(items), want, st)
	}
	if !strings.Contains(st["message"].(string), "6 objects listed: 4 items created") {
		t.Fatalf("message: %v", st)
	}
	it := a.Get(t, "/api/v1/items/"+items["in/sub/deep/d.mp4"]).Status(http.StatusOK).Object()
	want := map[string]any{
		"title": "d.mp4", "originalFileName": "d.mp4", "itemType": "video", "mediaType": "video/mp4", "mediaSize": 1.0,
		"transcodingState": "queued", "ingestSkipProcessing": false, "ingestSourceKey": "in/sub/deep/d.mp4",
		"ingestSourceObjBucket": cfg.Bucket, "ingestSourceStorageId": id,
		"ingestSourceFullPath": cfg.Bucket + "/in/sub/deep/d.mp4", "sourceFileLocation": "s3://" + cfg.Bucket + "/in/sub/deep/d.mp4",
		"ingestDestinationPath": "/Ingest/Cams/sub/deep", "highRes": "s3://" + cfg.Bucket + "/in/hi/sub/deep/d.mp4",
		"transcriptionEnabled": true, "labelDetectionEnabled": false,
	}
	for k, v := range want {
		if fmt.Sprint(it[k]) != fmt.Sprint(v) {
			t.Errorf("item %s = %v, want %v", k, it[k], v)
		}
	}
	if md := it["metadata"].(map[string]any)["formData"].(map[string]any); md["default_description"] != "from the bucket" {
		t.Errorf("metadata: %v", it["metadata"])
	}
	// The key's folders became Loupe folders under the target folder.
	var anc [][]map[string]any
	a.Get(t, "/api/v1/items/"+items["in/sub/deep/d.mp4"]+"/ancestry").Status(http.StatusOK).JSON(&anc)
	if len(anc) != 1 || len(anc[0]) != 4 || anc[0][0]["name"] != "Ingest" || anc[0][3]["name"] != "deep" {
		t.Fatalf("ancestry: %v", anc)
	}
	var sameFolder [][]map[string]any
	a.Get(t, "/api/v1/items/"+items["in/a.mp4"]+"/ancestry").JSON(&sameFolder)
	if len(sameFolder) != 1 || len(sameFolder[0]) != 2 || sameFolder[0][0]["id"] != anc[0][0]["id"] {
		t.Fatalf("a.mp4 ancestry: %v", sameFolder)
	}
	// Each item: a create audit record and a processing job.
	if n := api.Count(t, `SELECT count(*) FROM audit_records WHERE tenant_id = $1 AND action_type = 'create' AND item_id = ANY(
		SELECT item_id FROM ingested_objects WHERE tenant_id = $1)`, a.TenantID); n != 4 {
		t.Fatalf("%d audit records", n)
	}
	if n := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'process_item' AND queue = 'bulk' AND args->>'tenantId' = $1`, a.TenantID); n != 4 {
		t.Fatalf("%d processing jobs", n)
	}

	// A second scan creates nothing.
	before := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1`, a.TenantID)
	st = scan(t, a, id)
	if after := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1`, a.TenantID); after != before {
		t.Fatalf("rescan made %d items", after-before)
	}
	if !strings.Contains(st["message"].(string), "0 items created, 0 new versions, 4 already ingested") {
		t.Fatalf("rescan: %v", st)
	}

	// A changed object is a new version of its item; a new one a new item.
	putObjects(t, cfg.Bucket, map[string]string{"in/a.mp4": "a2!", "in/e.mp4": "e"})
	st = scan(t, a, id)
	if !strings.Contains(st["message"].(string), "1 items created, 1 new versions") {
		t.Fatalf("changed: %v", st)
	}
	items2 := ingestedItems(t, api, a.TenantID)
	if items2["in/a.mp4"] != items["in/a.mp4"] || len(items2) != 5 {
		t.Fatalf("after change: %v", items2)
	}
	var vh struct {
		Versions []map[string]any `json:"versions"`
	}
	a.Get(t, "/api/v1/items/"+items["in/a.mp4"]+"/versionsHistory").Status(http.StatusOK).JSON(&vh)
	if len(vh.Versions) != 2 {
		t.Fatalf("versions: %v", vh)
	}
	if it := a.Get(t, "/api/v1/items/"+items["in/a.mp4"]).Object(); it["mediaSize"] != 3.0 {
		t.Fatalf("new version's size: %v", it["mediaSize"])
	}

	// GraphQL starts and watches a scan too.
	var gs struct {
		ScanIngestStorageConfig struct {
			ScanStorageState map[string]any `json:"scanStorageState"`
		} `json:"scanIngestStorageConfig"`
	}
	a.GraphQL(t, `mutation($id: ID!) { scanIngestStorageConfig(id: $id) { scanStorageState { state message modifiedOn } } }`,
		map[string]any{"id": id}).OK(&gs)
	if s := gs.ScanIngestStorageConfig.ScanStorageState["state"]; s != "queued" && s != "scanning" && s != "complete" {
		t.Fatalf("graphql scan: %v", gs)
	}
	waitScan(t, a, id)
	if strings.Contains(log.String(), cfg.SecretAccessKey) {
		t.Fatal("the server log holds the secret key")
	}
}

// requireSidecar: only objects with a JSON sidecar are ingested, its
// metadata through the form's checks; skipProcessing.
func TestIngestSidecars(t *testing.T) {
	cfg := s3test.Bucket(t)
	putObjects(t, cfg.Bucket, map[string]string{
		"in/a.mp4": "a", "in/a.mp4.json": `{"title": "Clip A", "metadata": {"formData": {"default_description": "sidecar"}}}`,
		"in/b.mp4": "b",
		"in/c.mp4": "c", "in/c.mp4.json": `{"formData": {"default_description": 5}}`,
		"in/d.mp4": "d", "in/d.mp4.json": `not json`,
	})
	api, _ := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	id := a.Post(t, icPath, icBody(cfg, map[string]any{"requireSidecar": true, "skipProcessing": true})).
		Status(http.StatusOK).Object()["id"].(string)
	st := scan(t, a, id)
	items := ingestedItems(t, api, a.TenantID)
	if !slices.Equal(keysSorted(items), []string{"in/a.mp4"}) {
		t.Fatalf("ingested %v (%v)", keysSorted(items), st)
	}
	if !strings.Contains(st["message"].(string), "1 without sidecar, 2 with an invalid sidecar") {
		t.Fatalf("message: %v", st)
	}
	it := a.Get(t, "/api/v1/items/"+items["in/a.mp4"]).Object()
	if it["title"] != "Clip A" || it["transcodingState"] != "skipped" || it["ingestSkipProcessing"] != true ||
		it["metadata"].(map[string]any)["formData"].(map[string]any)["default_description"] != "sidecar" {
		t.Fatalf("item: %v", it)
	}
	if n := api.Count(t, `SELECT count(*) FROM river_job WHERE kind = 'process_item' AND args->>'tenantId' = $1`, a.TenantID); n != 0 {
		t.Fatalf("skipProcessing asked for %d jobs", n)
	}
}

// ingestFile ingests one object now; a wrong item id is the spec's 400.
func TestIngestFile(t *testing.T) {
	cfg := s3test.Bucket(t)
	putObjects(t, cfg.Bucket, map[string]string{"in/x.mp4": "x"})
	api, _ := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	id := a.Post(t, icPath, icBody(cfg, nil)).Status(http.StatusOK).Object()["id"].(string)
	const path = "/ingest/api/v1/ingestFile"

	got := a.Post(t, path, map[string]any{"ingestStorageConfigId": id, "key": "in/x.mp4"}).Status(http.StatusOK).Object()
	if got["result"] != "created" || got["transcodingState"] != "queued" {
		t.Fatalf("ingestFile: %v", got)
	}
	item := got["itemId"].(string)
	again := a.Post(t, path, map[string]any{"ingestStorageConfigId": id, "key": "in/x.mp4"}).Status(http.StatusOK).Object()
	if again["result"] != "known" || again["itemId"] != item {
		t.Fatalf("again: %v", again)
	}
	// A scan of the same bucket knows it.
	if st := scan(t, a, id); !strings.Contains(st["message"].(string), "0 items created") {
		t.Fatalf("scan after ingestFile: %v", st)
	}

	folder := a.Post(t, "/api/v1/folders/path", map[string]any{"path": "/F"}).Status(http.StatusOK)
	var folders []map[string]any
	folder.JSON(&folders)
	for _, wrong := range []string{"0192c5a0-0000-7000-8000-000000000000", "nope", folders[0]["id"].(string)} {
		a.Post(t, path, map[string]any{"ingestStorageConfigId": id, "key": "in/x.mp4", "itemId": wrong}).
			Envelope(http.StatusBadRequest, "Wrong item id")
	}
	// Another tenant's item is a wrong item id too.
	b := api.Tenant(t, "b")
	bItem := b.CreateItem(t, map[string]any{"itemType": "video", "title": "B"})
	a.Post(t, path, map[string]any{"ingestStorageConfigId": id, "key": "in/x.mp4", "itemId": bItem}).
		Envelope(http.StatusBadRequest, "Wrong item id")

	// A new version of a named item.
	putObjects(t, cfg.Bucket, map[string]string{"in/y.mp4": "yy"})
	other := a.CreateItem(t, map[string]any{"itemType": "video", "title": "Placeholder"})
	v := a.Post(t, path, map[string]any{"ingestStorageConfigId": id, "key": "in/y.mp4", "itemId": other}).Status(http.StatusOK).Object()
	if v["result"] != "version" || v["itemId"] != other {
		t.Fatalf("version: %v", v)
	}
	a.Post(t, path, map[string]any{"ingestStorageConfigId": id, "key": "in/missing.mp4"}).Status(http.StatusBadRequest)
	a.Post(t, path, map[string]any{"key": "in/x.mp4"}).Status(http.StatusBadRequest)

	var gq struct {
		IngestFile map[string]any `json:"ingestFile"`
	}
	a.GraphQL(t, `mutation($in: IngestFileInput!) { ingestFile(input: $in) { itemId result } }`,
		map[string]any{"in": map[string]any{"ingestStorageConfigId": id, "key": "in/x.mp4"}}).OK(&gq)
	if gq.IngestFile["itemId"] != item {
		t.Fatalf("graphql ingestFile: %v", gq)
	}
}

// A scan stopped after a page (as by a kill) resumes from its position
// and creates nothing twice; a page done again creates nothing.
func TestIngestScanResumes(t *testing.T) {
	cfg := s3test.Bucket(t)
	objs := map[string]string{}
	for i := range 25 {
		objs[fmt.Sprintf("in/f%02d.mp4", i)] = "x"
	}
	putObjects(t, cfg.Bucket, objs)
	api, _ := ingestServer(t, 10)
	a := api.Tenant(t, "a")
	id := a.Post(t, icPath, icBody(cfg, nil)).Status(http.StatusOK).Object()["id"].(string)

	// The scan as the worker runs it, stopped after its first page.
	r := &ingest.Service{Store: api.Store, Sources: &sources.Sources{Store: api.Store, Credentials: loupetest.Credentials(t), AllowPrivate: true}}
	ctx, cancel := context.WithCancel(context.Background())
	err := r.Scan(ctx, a.TenantID, id, ingest.ScanOptions{PageSize: 10, AfterPage: func(int) { cancel() }})
	if err == nil {
		t.Fatal("a stopped scan reports no error")
	}
	if n := len(ingestedItems(t, api, a.TenantID)); n != 10 {
		t.Fatalf("after one page: %d items", n)
	}
	got := a.Get(t, icPath+"/"+id).Object()["scanStorageState"].(map[string]any)
	if got["state"] != "scanning" || !strings.Contains(got["message"].(string), "10 objects listed: 10 items created") {
		t.Fatalf("interrupted: %v", got)
	}
	// At least once: the same page again (its position lost) creates nothing.
	if _, err := api.DB.Exec(`UPDATE ingest_configs SET scan_after = '' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	_ = r.Scan(ctx2, a.TenantID, id, ingest.ScanOptions{PageSize: 10, AfterPage: func(int) { cancel2() }})
	if n := len(ingestedItems(t, api, a.TenantID)); n != 10 {
		t.Fatalf("page done twice: %d items", n)
	}
	// The worker resumes the interrupted scan and finishes it.
	st := scan(t, a, id)
	if n := api.Count(t, `SELECT count(*) FROM items WHERE tenant_id = $1 AND item_type = 'video'`, a.TenantID); n != 25 {
		t.Fatalf("%d items after resuming (%v)", n, st)
	}
	if len(ingestedItems(t, api, a.TenantID)) != 25 {
		t.Fatal("not every key ingested")
	}
}

// Upload locations (2.15) and gateway configs ({l, i, s, t}).
func TestUploadLocationsAndGateways(t *testing.T) {
	cfg := s3test.Bucket(t)
	putObjects(t, cfg.Bucket, map[string]string{"gw/cam1/clip.mp4": "c"})
	api, log := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)

	// No default upload location yet: 404.
	a.Get(t, "/config/api/v1/config/defaultUploadLocation").Envelope(http.StatusNotFound, "The server can not find requested resource.")
	var locs []map[string]any
	a.Get(t, "/config/api/v1/config/uploadLocations").Status(http.StatusOK).JSON(&locs)
	if len(locs) != 0 {
		t.Fatalf("locations: %v", locs)
	}

	first := a.Post(t, icPath, icBody(cfg, map[string]any{"title": "Uploads", "ingestConfigType": "default_upload_location",
		"sourceKeyPrefix": "up", "deleteEnabled": true})).Status(http.StatusOK).Object()
	a.Post(t, icPath, icBody(cfg, map[string]any{"title": "Uploads 2", "ingestConfigType": "default_upload_location"})).Status(http.StatusOK)
	def := a.Get(t, "/config/api/v1/config/defaultUploadLocation").Status(http.StatusOK).Object()
	sameKeys(t, "default upload location", def, dulKeys)
	sameJSON(t, "default upload location", def, map[string]any{"id": first["id"], "name": "Uploads", "areCredentialsSaved": true,
		"type": "objBucket", "pathPrefix": "up/", "deleteEnabled": true, "accessType": "key-user", "externalId": ""})
	u.Get(t, "/config/api/v1/config/defaultUploadLocation").Status(http.StatusOK)
	b.Get(t, "/config/api/v1/config/defaultUploadLocation").Status(http.StatusNotFound)

	// Gateways.
	gwBody := map[string]any{"name": "Edge 1", "endpoint": cfg.Endpoint, "bucketName": cfg.Bucket, "pathPrefix": "gw",
		"accessKey": cfg.AccessKeyID, "secretKey": cfg.SecretAccessKey}
	gr := a.Post(t, gwPath, gwBody).Status(http.StatusOK)
	noSecret(t, "gateway", gr.Body, cfg.SecretAccessKey)
	gw := gr.Object()
	sameKeys(t, "gateway", gw, gwKeys)
	gwID := gw["id"].(string)
	a.Post(t, gwPath, map[string]any{"name": "Edge 2", "endpoint": cfg.Endpoint, "bucketName": cfg.Bucket,
		"accessKey": cfg.AccessKeyID, "secretKey": cfg.SecretAccessKey}).Status(http.StatusOK)
	bad := map[string]any{"name": "Bad", "endpoint": cfg.Endpoint, "bucketName": cfg.Bucket, "accessKey": cfg.AccessKeyID,
		"secretKey": "wrong-secret-0123456789"}
	a.Post(t, gwPath, bad).Status(http.StatusBadRequest)

	list := a.Get(t, gwPath).Status(http.StatusOK).Object()
	sameKeys(t, "gateway list", list, []string{"l", "i", "s", "t"})
	if list["t"] != 2.0 || list["i"] != nil || list["s"] != 100.0 || len(list["l"].([]any)) != 2 {
		t.Fatalf("gateway list: %v", list)
	}
	page := a.Get(t, gwPath+"?i=0&s=1").Object()
	if page["t"] != 2.0 || page["i"] != 1.0 || page["s"] != 1.0 || page["l"].([]any)[0].(map[string]any)["id"] != gwID {
		t.Fatalf("gateway page: %v", page)
	}
	if page2 := a.Get(t, gwPath+"?i=1&s=1").Object(); page2["i"] != nil || len(page2["l"].([]any)) != 1 {
		t.Fatalf("gateway page 2: %v", page2)
	}
	sameJSON(t, "other tenant's gateways", b.Get(t, gwPath).Object(), map[string]any{"l": []any{}, "i": nil, "s": 100, "t": 0})
	b.Delete(t, gwPath+"/"+gwID).Envelope(http.StatusNotFound, "The server can not find requested resource.")
	u.Get(t, gwPath).Status(http.StatusForbidden)

	// Upload locations: the gateways', then the configurations'.
	lr := a.Get(t, "/config/api/v1/config/uploadLocations").Status(http.StatusOK)
	noSecret(t, "upload locations", lr.Body, cfg.SecretAccessKey)
	lr.JSON(&locs)
	if len(locs) != 4 {
		t.Fatalf("upload locations: %v", locs)
	}
	sameKeys(t, "gateway location", locs[0], gwlKeys)
	if locs[0]["gatewayId"] != gwID || locs[0]["gatewayName"] != "Edge 1" {
		t.Fatalf("gateway location: %v", locs[0])
	}
	sameKeys(t, "configuration location", locs[2], icKeys)
	if locs[2]["ingestConfigType"] != "default_upload_location" {
		t.Fatalf("configuration location: %v", locs[2])
	}

	// A gateway's file.
	gf := a.Put(t, "/auxiliary/api/v1/gatewayIngestFile/"+gwID, map[string]any{"key": "gw/cam1/clip.mp4", "targetFolder": "/Edge"}).
		Status(http.StatusOK).Object()
	if gf["result"] != "created" {
		t.Fatalf("gateway ingest: %v", gf)
	}
	it := a.Get(t, "/api/v1/items/"+gf["itemId"].(string)).Object()
	if it["ingestSourceStorageId"] != gwID || it["ingestDestinationPath"] != "/Edge/cam1" || it["ingestSourceKey"] != "gw/cam1/clip.mp4" {
		t.Fatalf("gateway item: %v", it)
	}
	if g := a.Get(t, gwPath).Object()["l"].([]any)[0].(map[string]any); g["lastObjServerKeysUploadedAt"] == nil {
		t.Fatalf("gateway not touched: %v", g)
	}
	b.Put(t, "/auxiliary/api/v1/gatewayIngestFile/"+gwID, map[string]any{"key": "gw/cam1/clip.mp4"}).
		Envelope(http.StatusNotFound, "The server can not find requested resource.")

	a.Delete(t, gwPath+"/"+gwID).Status(http.StatusOK)
	a.Delete(t, gwPath+"/"+gwID).Status(http.StatusNotFound)

	// GraphQL.
	var gq struct {
		UploadLocations []map[string]any `json:"uploadLocations"`
		GatewayConfigs  map[string]any   `json:"gatewayConfigs"`
	}
	a.GraphQL(t, `{ uploadLocations { __typename ... on GatewayLocation { gatewayId } ... on IngestStorageConfig { id } }
		gatewayConfigs(size: 5) { t s i l { id } } }`, nil).OK(&gq)
	if len(gq.UploadLocations) != 3 || gq.UploadLocations[0]["__typename"] != "GatewayLocation" || gq.GatewayConfigs["t"] != 1.0 {
		t.Fatalf("graphql: %+v", gq)
	}
	if strings.Contains(log.String(), cfg.SecretAccessKey) {
		t.Fatal("the server log holds the secret key")
	}
}

// ingestFileTags: only objects with the tags are ingested (all of them, or
// any with ingestIfAnyTagsMatch).
func TestIngestTags(t *testing.T) {
	cfg := s3test.Bucket(t)
	client := s3test.Start(t).Client()
	for k, tags := range map[string]string{"in/news.mp4": "team=news&lang=de", "in/sport.mp4": "team=sport", "in/none.mp4": ""} {
		in := &s3.PutObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(k), Body: strings.NewReader("x")}
		if tags != "" {
			in.Tagging = aws.String(tags)
		}
		if _, err := client.PutObject(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	api, _ := ingestServer(t, 0)
	a := api.Tenant(t, "a")
	all := a.Post(t, icPath, icBody(cfg, map[string]any{"ingestFileTags": []string{"team=news", "lang"}})).Status(http.StatusOK).Object()
	st := scan(t, a, all["id"].(string))
	if got := keysSorted(ingestedItems(t, api, a.TenantID)); !slices.Equal(got, []string{"in/news.mp4"}) {
		t.Fatalf("all tags: %v (%v)", got, st)
	}
	anyTag := a.Post(t, icPath, icBody(cfg, map[string]any{"ingestFileTags": []string{"team=sport", "lang=de"},
		"ingestIfAnyTagsMatch": true})).Status(http.StatusOK).Object()
	scan(t, a, anyTag["id"].(string))
	if got := keysSorted(ingestedItems(t, api, a.TenantID)); !slices.Equal(got, []string{"in/news.mp4", "in/sport.mp4"}) {
		t.Fatalf("any tag: %v", got)
	}
}

// A bucket on a private address is refused unless the server allows
// private storage, as storage locations are.
func TestIngestPrivateEndpointRefused(t *testing.T) {
	cfg := s3test.Bucket(t)
	api := loupetest.New(t, func(c *server.Config) { c.AllowPrivateStorage = false })
	a := api.Tenant(t, "a")
	env := a.Post(t, icPath, icBody(cfg, nil)).Envelope(http.StatusBadRequest, "")
	if msg, _ := env["message"].(string); !strings.Contains(msg, "loopback") || strings.Contains(msg, cfg.SecretAccessKey) {
		t.Fatalf("private endpoint: %v", env)
	}
	a.Post(t, gwPath, map[string]any{"name": "Edge", "endpoint": cfg.Endpoint, "bucketName": cfg.Bucket,
		"accessKey": cfg.AccessKeyID, "secretKey": cfg.SecretAccessKey}).Status(http.StatusBadRequest)
}
