package rest_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/platform/secretbox"
	"github.com/loupe-mam/loupe/internal/storage/blob"
	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/server"
	"github.com/loupe-mam/loupe/store"
)

const (
	stPath            = "/config/api/v1/storages"
	slPath            = "/prime/api/v1/storages"
	stMsgCondition    = "The conditional request failed"
	slMsgCreate       = "Request body is not a valid storage creation payload"
	slMsgUpdate       = "Request body is not a valid storage update payload"
	slMsgDelete       = "Request body is not a valid storage deletion payload"
	stMsgStoragesOnly = "Only administrators may change storages and read or change storage locations."
)

// The keys of spec 2.13, all required.
var stKeys = strings.Fields(`id name private description owner`)

// The keys of a storage location (docs/storage-locations.md).
var slKeys = strings.Fields(`id storageId name type bucketName pathPrefix endpoint region pathStyle accessType
accessKey roleIdentifier externalId areCredentialsSaved isDefault createdOn modifiedOn`)

// Tenant storages (spec 2.13): CRUD, the list shape, 400s, tenancy.
func TestStorages(t *testing.T) {
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)

	var list map[string]any
	a.Get(t, stPath).Status(http.StatusOK).JSON(&list)
	sameJSON(t, "empty list", list, map[string]any{"total": 0.0, "_embedded": map[string]any{"collection": []any{}}})

	got := a.Post(t, stPath, map[string]any{"name": "Archive", "description": "cold"}).Status(http.StatusOK).Object()
	sameKeys(t, "storage", got, stKeys)
	if got["owner"] != a.UserID || got["private"] != false || got["description"] != "cold" {
		t.Fatalf("created storage: %v", got)
	}
	id := got["id"].(string)
	a.Post(t, stPath, map[string]any{"name": "Backup", "private": true, "owner": "ops"}).Status(http.StatusOK)

	a.Get(t, stPath).Status(http.StatusOK).JSON(&list)
	if list["total"] != 2.0 {
		t.Fatalf("list: %v", list)
	}
	coll := list["_embedded"].(map[string]any)["collection"].([]any)
	if len(coll) != 2 || coll[0].(map[string]any)["name"] != "Archive" || coll[1].(map[string]any)["owner"] != "ops" {
		t.Fatalf("collection: %v", coll)
	}
	for _, s := range coll {
		sameKeys(t, "listed storage", s.(map[string]any), stKeys)
	}

	// Bad creates: 400 naming the problem.
	a.Post(t, stPath, map[string]any{"description": "no name"}).Envelope(http.StatusBadRequest, "name is required")
	a.Post(t, stPath, map[string]any{"name": 5}).Status(http.StatusBadRequest)
	a.Post(t, stPath, "{").Envelope(http.StatusBadRequest, msgInvalidSyntaxST)

	// Update: fields given change; a bad body is the spec's invalid syntax.
	upd := a.Put(t, stPath+"/"+id, map[string]any{"name": "Archive 2", "private": true}).Status(http.StatusOK).Object()
	if upd["name"] != "Archive 2" || upd["private"] != true || upd["description"] != "cold" || upd["id"] != id {
		t.Fatalf("updated: %v", upd)
	}
	for _, body := range []any{"{", map[string]any{"name": 5}, map[string]any{"name": nil}, map[string]any{"name": ""},
		map[string]any{"id": loupetestID}} {
		a.Put(t, stPath+"/"+id, body).Envelope(http.StatusBadRequest, msgInvalidSyntaxST)
	}
	a.Put(t, stPath+"/"+loupetestID, map[string]any{"name": "x"}).Envelope(http.StatusNotFound, msgNotFoundST)

	// Another tenant's storage answers like a missing one; its list is its own.
	b.Get(t, stPath).Status(http.StatusOK).JSON(&list)
	if list["total"] != 0.0 {
		t.Fatalf("b sees a's storages: %v", list)
	}
	b.Put(t, stPath+"/"+id, map[string]any{"name": "stolen"}).Envelope(http.StatusNotFound, msgNotFoundST)
	b.Delete(t, stPath+"/"+id).Envelope(http.StatusNotFound, msgNotFoundST)

	// GraphQL reads one by id; another tenant's is not found.
	var one struct {
		Storage map[string]any `json:"storage"`
	}
	a.GraphQL(t, `query($id: ID!) { storage(id: $id) { id name owner } }`, map[string]any{"id": id}).OK(&one)
	if one.Storage["name"] != "Archive 2" {
		t.Fatalf("graphql storage: %v", one)
	}
	b.GraphQL(t, `query($id: ID!) { storage(id: $id) { id } }`, map[string]any{"id": id}).ErrorCode("NOT_FOUND")

	// Users read; only admins write.
	u.Get(t, stPath).Status(http.StatusOK)
	u.Post(t, stPath, map[string]any{"name": "mine"}).Envelope(http.StatusForbidden, stMsgStoragesOnly)
	u.Delete(t, stPath+"/"+id).Envelope(http.StatusForbidden, stMsgStoragesOnly)

	// Delete.
	a.Delete(t, stPath+"/"+id).Status(http.StatusOK)
	a.Delete(t, stPath+"/"+id).Envelope(http.StatusNotFound, msgNotFoundST)
	a.Delete(t, stPath+"/not-an-id").Envelope(http.StatusNotFound, msgNotFoundST)
}

const (
	msgInvalidSyntaxST = "The server could not understand the request due to invalid syntax."
	msgNotFoundST      = "The server can not find requested resource."
	loupetestID        = "01900000-0000-7000-8000-000000000000"
)

// slBody is a create body for bucket cfg with its credentials.
func slBody(cfg blob.S3Config, extra map[string]any) map[string]any {
	b := map[string]any{
		"name": "Main", "bucketName": cfg.Bucket, "endpoint": cfg.Endpoint, "region": cfg.Region,
		"pathStyle": true, "accessType": "key-user", "accessKey": cfg.AccessKeyID, "secretKey": cfg.SecretAccessKey,
		"pathPrefix": "media/loupe",
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

// noSecret fails when the secret appears in an answer.
func noSecret(t *testing.T, what string, body []byte, secret string) {
	t.Helper()
	if strings.Contains(string(body), secret) {
		t.Fatalf("%s contains the secret key: %s", what, body)
	}
}

// bucketKeys lists every key in the bucket.
func bucketKeys(t *testing.T, bucket string) []string {
	t.Helper()
	out, err := s3test.Start(t).Client().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, *o.Key)
	}
	return keys
}

// Storage locations on a real S3 server: probed on save, the secret sealed
// and never answered, the spec's three 400s, tenancy, storages in use.
func TestStorageLocations(t *testing.T) {
	cfg := s3test.Bucket(t)
	secret := cfg.SecretAccessKey
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)

	resp := a.Post(t, slPath, slBody(cfg, nil)).Status(http.StatusOK)
	noSecret(t, "create answer", resp.Body, secret)
	loc := resp.Object()
	sameKeys(t, "storage location", loc, slKeys)
	if loc["areCredentialsSaved"] != true || loc["pathPrefix"] != "media/loupe/" || loc["accessKey"] != cfg.AccessKeyID ||
		loc["type"] != "s3" || loc["isDefault"] != false || loc["roleIdentifier"] != nil {
		t.Fatalf("created: %v", loc)
	}
	id := loc["id"].(string)
	// The probe object was written and removed.
	if keys := bucketKeys(t, cfg.Bucket); len(keys) != 0 {
		t.Fatalf("the probe left %v", keys)
	}
	// At rest: sealed, not the secret.
	var sealed []byte
	if err := api.DB.Get(&sealed, `SELECT secret_sealed FROM storage_locations WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if len(sealed) == 0 || strings.Contains(string(sealed), secret) {
		t.Fatalf("secret_sealed is %d bytes, or holds the secret", len(sealed))
	}

	// The list, without the secret.
	resp = a.Get(t, slPath).Status(http.StatusOK)
	noSecret(t, "list", resp.Body, secret)
	var locs []map[string]any
	resp.JSON(&locs)
	if len(locs) != 1 || locs[0]["id"] != id {
		t.Fatalf("list: %v", locs)
	}

	// Failed probes: 400, the problem named (S3's code in payload.key),
	// the secret nowhere.
	env := a.Post(t, slPath, slBody(cfg, map[string]any{"secretKey": "wrong" + secret[5:]})).Envelope(http.StatusBadRequest, slMsgCreate)
	if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, cfg.Bucket) || strings.Contains(dm, secret[5:]) {
		t.Fatalf("wrong secret: %v", env)
	}
	if p, _ := env["payload"].(map[string]any); p["key"] != "SignatureDoesNotMatch" {
		t.Fatalf("wrong secret payload: %v", env)
	}
	env = a.Post(t, slPath, slBody(cfg, map[string]any{"bucketName": "no-such-bucket-here"})).Envelope(http.StatusBadRequest, slMsgCreate)
	if p, _ := env["payload"].(map[string]any); p["key"] != "NoSuchBucket" {
		t.Fatalf("missing bucket: %v", env)
	}

	// Invalid bodies: the spec's message per operation, the problem in
	// developerMessage.
	for _, c := range []struct {
		body any
		dev  string
	}{
		{"", "Missing request body."},
		{"{", ""},
		{slBody(cfg, map[string]any{"secretKey": nil}), "secretKey is required"},
		{slBody(cfg, map[string]any{"bucketName": "Not_A_Bucket"}), "bucketName"},
		{slBody(cfg, map[string]any{"type": "disk"}), "type"},
		{slBody(cfg, map[string]any{"accessType": "assume-role", "accessKey": nil, "secretKey": nil}), "roleIdentifier is required"},
		{slBody(cfg, map[string]any{"endpoint": "ftp://x"}), "endpoint"},
		{slBody(cfg, map[string]any{"storageId": loupetestID}), "storageId"},
		{slBody(cfg, map[string]any{"pathPrefix": "a/../b"}), "pathPrefix"},
	} {
		env := a.Post(t, slPath, c.body).Envelope(http.StatusBadRequest, slMsgCreate)
		if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, c.dev) {
			t.Errorf("create %v: developerMessage %q, want it to name %q", c.body, dm, c.dev)
		}
	}
	a.Put(t, slPath, map[string]any{"name": "no id"}).Envelope(http.StatusBadRequest, slMsgUpdate)
	a.Put(t, slPath, "").Envelope(http.StatusBadRequest, slMsgUpdate)
	a.Put(t, slPath, map[string]any{"id": id, "bucketName": "x"}).Envelope(http.StatusBadRequest, slMsgUpdate)
	a.Do(t, "DELETE", slPath, "").Envelope(http.StatusBadRequest, slMsgDelete)
	a.Do(t, "DELETE", slPath, map[string]any{"name": "x"}).Envelope(http.StatusBadRequest, slMsgDelete)

	// Update without secretKey keeps (and probes with) the saved one; a
	// wrong new one is refused and the saved one stays.
	upd := a.Put(t, slPath, map[string]any{"id": id, "name": "Renamed", "isDefault": true}).Status(http.StatusOK).Object()
	if upd["name"] != "Renamed" || upd["areCredentialsSaved"] != true || upd["isDefault"] != true {
		t.Fatalf("updated: %v", upd)
	}
	a.Put(t, slPath, map[string]any{"id": id, "secretKey": "nope" + secret[4:]}).Envelope(http.StatusBadRequest, slMsgUpdate)
	a.Put(t, slPath, map[string]any{"id": id, "pathPrefix": "other"}).Status(http.StatusOK)
	// Switching to assume-role drops the access key and the secret; this S3
	// server has no STS, so the probe fails and nothing changes.
	env = a.Put(t, slPath, map[string]any{"id": id, "accessType": "assume-role",
		"roleIdentifier": "arn:aws:iam::123456789012:role/loupe", "externalId": "ext-1"}).Envelope(http.StatusBadRequest, slMsgUpdate)
	if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, "Could not verify storage location") {
		t.Fatalf("assume-role without STS: %v", env)
	}
	a.Put(t, slPath, map[string]any{"id": id, "accessType": "key-user"}).Status(http.StatusOK)

	// One default: a second default location takes it over.
	second := a.Post(t, slPath, slBody(cfg, map[string]any{"name": "Second", "isDefault": true, "pathPrefix": ""})).Status(http.StatusOK).Object()
	a.Get(t, slPath).Status(http.StatusOK).JSON(&locs)
	defaults := 0
	for _, l := range locs {
		if l["isDefault"] == true {
			defaults++
			if l["id"] != second["id"] {
				t.Fatalf("the default is %v, want the second", l["id"])
			}
		}
	}
	if defaults != 1 {
		t.Fatalf("%d defaults", defaults)
	}

	// A location in a storage: the storage cannot be deleted while in use.
	st := a.Post(t, stPath, map[string]any{"name": "S"}).Status(http.StatusOK).Object()
	stID := st["id"].(string)
	a.Put(t, slPath, map[string]any{"id": id, "storageId": stID}).Status(http.StatusOK)
	env = a.Delete(t, stPath+"/"+stID).Envelope(http.StatusBadRequest, stMsgCondition)
	if p, _ := env["payload"].(map[string]any); p == nil {
		t.Fatalf("in use: no payload: %v", env)
	}
	// Another tenant's storage is no storage here.
	bst := b.Post(t, stPath, map[string]any{"name": "B"}).Status(http.StatusOK).Object()
	a.Put(t, slPath, map[string]any{"id": id, "storageId": bst["id"]}).Envelope(http.StatusBadRequest, slMsgUpdate)

	// Tenancy: b sees none of a's, and a's id answers like a missing one.
	b.Get(t, slPath).Status(http.StatusOK).JSON(&locs)
	if len(locs) != 0 {
		t.Fatalf("b sees %v", locs)
	}
	b.Put(t, slPath, map[string]any{"id": id, "name": "stolen"}).Envelope(http.StatusNotFound, msgNotFoundST)
	b.Do(t, "DELETE", slPath, map[string]any{"id": id}).Envelope(http.StatusNotFound, msgNotFoundST)

	// Users may not read or write locations.
	u.Get(t, slPath).Envelope(http.StatusForbidden, stMsgStoragesOnly)
	u.Post(t, slPath, slBody(cfg, nil)).Envelope(http.StatusForbidden, stMsgStoragesOnly)

	// GraphQL: the same, and no field answers the secret.
	var gq struct {
		StorageLocations []map[string]any `json:"storageLocations"`
	}
	a.GraphQL(t, `{ storageLocations { id name areCredentialsSaved storageId } }`, nil).OK(&gq)
	if len(gq.StorageLocations) != 2 {
		t.Fatalf("graphql: %v", gq)
	}
	a.GraphQL(t, `{ storageLocations { secretKey } }`, nil).ErrorCode("GRAPHQL_VALIDATION_FAILED")
	b.GraphQL(t, `query($id: ID!) { storageLocation(id: $id) { id } }`, map[string]any{"id": id}).ErrorCode("NOT_FOUND")
	var created struct {
		CreateStorageLocation map[string]any `json:"createStorageLocation"`
	}
	a.GraphQL(t, `mutation($in: StorageLocationInput!) { createStorageLocation(input: $in) { id pathPrefix areCredentialsSaved } }`,
		map[string]any{"in": slBody(cfg, map[string]any{"name": "GQL", "pathPrefix": "/g"})}).OK(&created)
	if created.CreateStorageLocation["pathPrefix"] != "g/" {
		t.Fatalf("graphql create: %v", created)
	}
	a.Do(t, "DELETE", slPath, map[string]any{"id": created.CreateStorageLocation["id"]}).Status(http.StatusOK)

	// Storage managers: the system scope sees every location probed now.
	k, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := api.Store.CreateSystemKey(context.Background(), store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "ops"}); err != nil {
		t.Fatal(err)
	}
	sys := api.WithKey(k.Header)
	a.Get(t, "/api/v1/storageManagers").Envelope(http.StatusUnauthorized, msgUnauthenticated)
	var managers []map[string]any
	resp = sys.Get(t, "/api/v1/storageManagers").Status(http.StatusOK)
	noSecret(t, "storage managers", resp.Body, secret)
	resp.JSON(&managers)
	if len(managers) != 3 || managers[0]["id"] != "files" || managers[0]["type"] != "disk" {
		t.Fatalf("managers: %v", managers)
	}
	for _, m := range managers[1:] {
		if m["status"] != "ok" || m["tenantId"] != a.TenantID || m["bucketName"] != cfg.Bucket || m["type"] != "s3" {
			t.Fatalf("manager: %v", m)
		}
	}
	// A location whose secret no longer works is unavailable.
	api.DB.MustExec(`UPDATE storage_locations SET access_key = 'AKIDNOTTHERE' WHERE id = $1`, id)
	sys.Get(t, "/api/v1/storageManagers").Status(http.StatusOK).JSON(&managers)
	for _, m := range managers[1:] {
		msg, _ := m["message"].(string)
		if (m["id"] == id) != (m["status"] == "unavailable") || (m["id"] == id && !strings.Contains(msg, cfg.Bucket)) {
			t.Fatalf("manager after the key changed: %v", m)
		}
	}

	// A server with another credentials key cannot open the saved secrets:
	// its probes say so, and an update must bring the secret again.
	otherKey, err := secretbox.New([]byte("another-credentials-key-0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	other := api.Another(t, func(c *server.Config) { c.Credentials = otherKey })
	sys.On(other).Get(t, "/api/v1/storageManagers").Status(http.StatusOK).JSON(&managers)
	if msg, _ := managers[1]["message"].(string); !strings.Contains(msg, "does not open") {
		t.Fatalf("manager under another key: %v", managers[1])
	}
	env = a.On(other).Put(t, slPath, map[string]any{"id": second["id"], "name": "x"}).Envelope(http.StatusBadRequest, slMsgUpdate)
	if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, "does not open") {
		t.Fatalf("update under another key: %v", env)
	}
	a.On(other).Put(t, slPath, map[string]any{"id": second["id"], "secretKey": secret}).Status(http.StatusOK)

	// Delete: the location, then the storage it was in.
	a.Do(t, "DELETE", slPath, map[string]any{"id": id}).Status(http.StatusOK)
	a.Do(t, "DELETE", slPath, map[string]any{"id": id}).Envelope(http.StatusNotFound, msgNotFoundST)
	a.Delete(t, stPath+"/"+stID).Status(http.StatusOK)
}

// Endpoints at private addresses are refused unless the server allows them.
func TestStorageLocationPrivateEndpoint(t *testing.T) {
	cfg := s3test.Bucket(t)
	api := loupetest.New(t, func(c *server.Config) { c.AllowPrivateStorage = false })
	a := api.Tenant(t, "a")
	env := a.Post(t, slPath, slBody(cfg, nil)).Envelope(http.StatusBadRequest, slMsgCreate)
	if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, "loopback") {
		t.Fatalf("private endpoint: %v", env)
	}
	// Without a credentials key, a secret cannot be kept.
	api = loupetest.New(t, func(c *server.Config) { c.Credentials = nil })
	a = api.Tenant(t, "a")
	env = a.Post(t, slPath, slBody(cfg, nil)).Envelope(http.StatusBadRequest, slMsgCreate)
	if dm, _ := env["developerMessage"].(string); !strings.Contains(dm, "LOUPE_CREDENTIALS_KEY") {
		t.Fatalf("no credentials key: %v", env)
	}
}

// Concurrent writes: one default whatever the order, and an update read
// before another write (the default moving away included) fails instead of
// undoing it.
func TestStorageLocationWrites(t *testing.T) {
	cfg := s3test.Bucket(t)
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	first := a.Post(t, slPath, slBody(cfg, map[string]any{"name": "first", "isDefault": true})).Status(http.StatusOK).Object()
	stale, err := api.Store.StorageLocation(context.Background(), a.TenantID, first["id"].(string))
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each its own prefix: versitygw's posix backend keeps prefixes as
			// directories and races when one probe's delete removes the
			// directory another's write is creating (real S3 has none).
			a.Post(t, slPath, slBody(cfg, map[string]any{"name": fmt.Sprint("n", i), "isDefault": true,
				"pathPrefix": fmt.Sprintf("n%d/", i)})).Status(http.StatusOK)
		}()
	}
	wg.Wait()
	if n := api.Count(t, `SELECT count(*) FROM storage_locations WHERE tenant_id = $1 AND is_default`, a.TenantID); n != 1 {
		t.Fatalf("%d defaults", n)
	}
	// The first lost the default meanwhile: writing it as read is refused.
	stale.Name = "stale"
	_, err = api.Store.UpdateStorageLocation(context.Background(), a.TenantID, stale)
	if loupe.ErrorKind(err) != loupe.ECONFLICT {
		t.Fatalf("stale update: %v, want a conflict", err)
	}
	if n := api.Count(t, `SELECT count(*) FROM storage_locations WHERE tenant_id = $1 AND is_default`, a.TenantID); n != 1 {
		t.Fatalf("%d defaults after the stale update", n)
	}
}
