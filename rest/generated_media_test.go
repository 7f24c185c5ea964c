package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
	"github.com/loupe-mam/loupe/internal/testkit/s3test"
	"github.com/loupe-mam/loupe/server"
)

const gmlPath = "/ingest/api/v1/generatedMediaLocations"

// The keys of spec 2.16 (the access type's own keys included), and
// Loupe's additions (docs/generated-media-locations.md).
var gmlKeys = strings.Fields(`id bucketName pathPrefix backup deleteEnabled autoCreateItems uploadGeneratedMedia
storageProvider accessType platformFolderId roleIdentifier externalId accessKey areCredentialsSaved endpoint region
pathStyle eventsTarget createdOn`)

// Generated-media locations on a real S3 server: verified by a probe
// object on create, listed with the 2.16 keys, the secret never answered;
// a location that cannot be verified is the spec's 400 with payload.key.
func TestGeneratedMediaLocations(t *testing.T) {
	cfg := s3test.Bucket(t)
	secret := cfg.SecretAccessKey
	api := loupetest.New(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	u := a.User(t, "u@a.test", nil, false)
	folder := a.CreateItem(t, map[string]any{"title": "Generated", "itemType": "folder"})

	body := slBody(cfg, map[string]any{"name": nil, "autoCreateItems": true, "platformFolderId": folder})
	resp := a.Post(t, gmlPath, body).Status(http.StatusOK)
	noSecret(t, "create answer", resp.Body, secret)
	g := resp.Object()
	sameKeys(t, "generated-media location", g, gmlKeys)
	if g["bucketName"] != cfg.Bucket || g["pathPrefix"] != "media/loupe/" || g["storageProvider"] != "obj_native" ||
		g["accessType"] != "key-user" || g["accessKey"] != cfg.AccessKeyID || g["areCredentialsSaved"] != true ||
		g["autoCreateItems"] != true || g["uploadGeneratedMedia"] != true || g["backup"] != false ||
		g["platformFolderId"] != folder || g["eventsTarget"] != nil {
		t.Fatalf("created: %v", g)
	}
	if keys := bucketKeys(t, cfg.Bucket); len(keys) != 0 {
		t.Fatalf("the probe left %v", keys)
	}
	resp = a.Get(t, gmlPath).Status(http.StatusOK)
	noSecret(t, "list", resp.Body, secret)
	var list []map[string]any
	resp.JSON(&list)
	if len(list) != 1 || list[0]["id"] != g["id"] {
		t.Fatalf("list: %v", list)
	}
	// It is a storage location too (probed by storage managers, listed
	// under /prime/api/v1/storages).
	var locs []map[string]any
	a.Get(t, slPath).Status(http.StatusOK).JSON(&locs)
	if len(locs) != 1 || locs[0]["id"] != g["id"] || locs[0]["name"] != cfg.Bucket+"/media/loupe" {
		t.Fatalf("storage locations: %v", locs)
	}

	// Cannot be verified: 400 "Could not verify location", S3's code as
	// payload.key, what failed in payload.message; nothing saved.
	env := a.Post(t, gmlPath, slBody(cfg, map[string]any{"secretKey": "wrong" + secret[5:]})).
		Envelope(http.StatusBadRequest, "Could not verify location")
	p, _ := env["payload"].(map[string]any)
	if p["key"] != "SignatureDoesNotMatch" || !strings.Contains(p["message"].(string), cfg.Bucket) ||
		strings.Contains(p["message"].(string), secret[5:]) {
		t.Fatalf("wrong secret: %v", env)
	}
	a.Get(t, gmlPath).Status(http.StatusOK).JSON(&list)
	if len(list) != 1 {
		t.Fatalf("a failed create saved something: %v", list)
	}

	// Invalid input: 400 naming the field; another tenant's folder is not
	// a folder; non-admins are refused; another tenant sees none.
	a.Post(t, gmlPath, "").Envelope(http.StatusBadRequest, "Missing request body.")
	a.Post(t, gmlPath, slBody(cfg, map[string]any{"bucketName": "Not_A_Bucket"})).Status(http.StatusBadRequest)
	a.Post(t, gmlPath, slBody(cfg, map[string]any{"storageProvider": "gcs"})).Status(http.StatusBadRequest)
	bf := b.CreateItem(t, map[string]any{"title": "B's", "itemType": "folder"})
	env = a.Post(t, gmlPath, slBody(cfg, map[string]any{"platformFolderId": bf})).Envelope(http.StatusBadRequest, "")
	if !strings.Contains(env["message"].(string), "platformFolderId") {
		t.Fatalf("another tenant's folder: %v", env)
	}
	u.Get(t, gmlPath).Status(http.StatusForbidden)
	u.Post(t, gmlPath, body).Status(http.StatusForbidden)
	b.Get(t, gmlPath).Status(http.StatusOK).JSON(&list)
	if len(list) != 0 {
		t.Fatalf("b sees a's: %v", list)
	}

	// GraphQL runs the same resolvers.
	var gq struct {
		GeneratedMediaLocations []map[string]any `json:"generatedMediaLocations"`
	}
	a.GraphQL(t, `{ generatedMediaLocations { id bucketName areCredentialsSaved } }`, nil).OK(&gq)
	if len(gq.GeneratedMediaLocations) != 1 || gq.GeneratedMediaLocations[0]["id"] != g["id"] {
		t.Fatalf("graphql: %v", gq)
	}
}

// With an event target configured, creating a location attaches the
// bucket's trigger; a server that cannot keep triggers (versitygw has no
// bucket events) makes the create the spec's 400 and saves nothing.
func TestGeneratedMediaLocationEvents(t *testing.T) {
	cfg := s3test.Bucket(t)
	api := loupetest.New(t, func(c *server.Config) { c.BucketEventsTarget = "arn:aws:sqs:us-east-1:123456789012:loupe-events" })
	a := api.Tenant(t, "a")
	env := a.Post(t, gmlPath, slBody(cfg, nil)).Envelope(http.StatusBadRequest, "Could not verify location")
	p, _ := env["payload"].(map[string]any)
	t.Logf("payload: %v", p)
	if p["key"] == nil || !strings.Contains(p["message"].(string), "event triggers") {
		t.Fatalf("events not attachable: %v", env)
	}
	var list []map[string]any
	a.Get(t, gmlPath).Status(http.StatusOK).JSON(&list)
	if len(list) != 0 {
		t.Fatalf("saved: %v", list)
	}
}

// On an S3 server with bucket events (MinIO, a webhook target), creating a
// location attaches a trigger for real: an object written under the
// location's prefix reaches the target, one written elsewhere does not.
func TestGeneratedMediaLocationEventsReachTheTarget(t *testing.T) {
	events := make(chan string, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			EventName string
			Key       string
		}
		if err := json.NewDecoder(r.Body).Decode(&ev); err == nil && ev.Key != "" {
			key, _ := url.PathUnescape(ev.Key) // bucket/key, the key escaped
			events <- ev.EventName + " " + key
		}
	}))
	defer hook.Close()
	minio := s3test.StartMinIO(t, map[string]string{"loupe": hook.URL})
	ctx := context.Background()
	cfg, err := minio.NewBucket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	arn := s3test.WebhookARN("loupe")
	api := loupetest.New(t, func(c *server.Config) { c.BucketEventsTarget = arn })
	a := api.Tenant(t, "a")
	var loc map[string]any
	a.Post(t, gmlPath, slBody(cfg, nil)).Status(http.StatusOK).JSON(&loc)
	if loc["eventsTarget"] != arn {
		t.Fatalf("eventsTarget = %v, want %s", loc["eventsTarget"], arn)
	}
	put := func(key string) {
		if _, err := minio.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(key),
			Body: strings.NewReader("frame")}); err != nil {
			t.Fatal(err)
		}
	}
	put("elsewhere/clip.mp4")
	put("media/loupe/item-1/proxy.mp4")
	select {
	case got := <-events:
		if !strings.HasPrefix(got, "s3:ObjectCreated:") || !strings.HasSuffix(got, " "+cfg.Bucket+"/media/loupe/item-1/proxy.mp4") {
			t.Fatalf("event %q, want the object under the prefix", got)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no event reached the target")
	}
	select {
	case got := <-events:
		t.Fatalf("another event: %q", got)
	case <-time.After(500 * time.Millisecond):
	}
}
