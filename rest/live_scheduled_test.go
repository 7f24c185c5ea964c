package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loupe-mam/loupe/internal/testkit/loupetest"
)

const scheduledPath = "/prime/api/v1/live/scheduled"

const recordingFields = `id title pipelineId seriesId folderId start end durationSeconds state crash`

type recordingT struct {
	ID, Title, PipelineID, Start, End, State string
	SeriesID, FolderID                       *string
	DurationSeconds                          int
	Crash                                    bool
}

type occurrenceT struct {
	Start, End string
	ItemID     *string
}

type seriesT struct {
	ID, Title, Repeat, TimeZone string
	Days, Exceptions            []string
	Count                       *int
	Occurrences                 []occurrenceT
}

type scheduledT struct {
	Recordings []recordingT
	Series     []seriesT
}

const seriesFields = `id title repeat timeZone days exceptions count occurrences { start end itemId }`

// stampT is t as the API writes it.
func stampT(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// livePipeline makes a pipeline on the studio network (never measured as
// ok; a schedule does not need it to be).
func livePipeline(t *testing.T, c *loupetest.Client, name string) string {
	t.Helper()
	return createLive(t, c, map[string]any{"pipelineName": name,
		"sources": []map[string]any{{"key": "main", "url": "srt://10.20.30.40:9000"}}}).PipelineID
}

func schedule(t *testing.T, c *loupetest.Client, in map[string]any) *loupetest.GraphQLResponse {
	t.Helper()
	return c.GraphQL(t, `mutation($i: ScheduleRecordingInput!) { scheduleRecording(input: $i) { `+recordingFields+` } }`,
		map[string]any{"i": in})
}

func scheduleOK(t *testing.T, c *loupetest.Client, in map[string]any) recordingT {
	t.Helper()
	var out struct{ ScheduleRecording recordingT }
	schedule(t, c, in).OK(&out)
	return out.ScheduleRecording
}

func createSeries(t *testing.T, c *loupetest.Client, in map[string]any) *loupetest.GraphQLResponse {
	t.Helper()
	return c.GraphQL(t, `mutation($i: RecordingSeriesInput!) { createRecordingSeries(input: $i) { `+seriesFields+` } }`,
		map[string]any{"i": in})
}

func listScheduled(t *testing.T, c *loupetest.Client, from, to time.Time) scheduledT {
	t.Helper()
	var out scheduledT
	c.Get(t, scheduledPath+"?from="+url.QueryEscape(stampT(from))+"&to="+url.QueryEscape(stampT(to))).
		Status(http.StatusOK).JSON(&out)
	return out
}

// soon is a whole second an hour or more ahead: a start the recorder
// does not reach during the test.
func soon(h time.Duration) time.Time {
	return time.Now().UTC().Add(time.Hour + h).Truncate(time.Second)
}

// Bad input is a 400 naming the field, and nothing is made: no item, no
// recording, no series.
func TestLiveScheduledValidation(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	pl := livePipeline(t, a, "Studio A")
	theirs := livePipeline(t, b, "Studio B")
	folder := a.CreateItem(t, map[string]any{"title": "Recordings", "itemType": "folder"})
	start := soon(0)
	taken := scheduleOK(t, a, map[string]any{"title": "Taken", "pipelineId": pl, "folderId": folder,
		"start": stampT(start), "durationSeconds": 1800})
	if taken.State != "scheduled" || taken.FolderID == nil || *taken.FolderID != folder || taken.DurationSeconds != 1800 ||
		taken.Start != stampT(start) || taken.End != stampT(start.Add(30*time.Minute)) || taken.Crash {
		t.Fatalf("scheduled: %+v", taken)
	}
	var item map[string]any
	a.Get(t, "/api/v1/items/"+taken.ID).Status(http.StatusOK).JSON(&item)
	if item["itemType"] != "video" || item["title"] != "Taken" {
		t.Fatalf("the recording's item: %v", item)
	}

	counts := func() [3]int {
		return [3]int{
			api.Count(t, `SELECT count(*) FROM items WHERE item_type IN ('video', 'audio')`),
			api.Count(t, `SELECT count(*) FROM live_recordings`),
			api.Count(t, `SELECT count(*) FROM live_series`),
		}
	}
	before := counts()
	later := start.Add(3 * time.Hour)
	rec := func(kv ...any) map[string]any {
		in := map[string]any{"title": "News", "pipelineId": pl, "start": stampT(later), "durationSeconds": 600}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(in, kv[i].(string))
			} else {
				in[kv[i].(string)] = kv[i+1]
			}
		}
		return in
	}
	for _, tt := range []struct {
		name, field string
		in          map[string]any
	}{
		{"unknown pipeline", "pipelineId", rec("pipelineId", "0190a0a0-0000-7000-8000-000000000000")},
		{"another tenant's pipeline", "pipelineId", rec("pipelineId", theirs)},
		{"start in the past", "start", rec("start", stampT(time.Now().Add(-time.Minute)))},
		{"end before start", "end", rec("durationSeconds", nil, "end", stampT(later.Add(-time.Minute)))},
		{"end at start", "end", rec("durationSeconds", nil, "end", stampT(later))},
		{"end and duration", "end and durationSeconds", rec("end", stampT(later.Add(time.Hour)))},
		{"neither end nor duration", "end or durationSeconds", rec("durationSeconds", nil)},
		{"over 24 hours", "durationSeconds", rec("durationSeconds", 86401)},
		{"unknown folder", "folderId", rec("folderId", "0190a0a0-0000-7000-8000-000000000000")},
		{"another tenant's folder", "folderId", rec("folderId", b.ArchiveFolderID)},
		{"no title", "title", rec("title", nil)},
		{"form data not an object", "metadata.formData", rec("metadata", map[string]any{"formData": []int{1}})},
		{"overlapping", "start", rec("start", stampT(start.Add(10*time.Minute)))},
		{"overlapping its start", "start", rec("start", stampT(start.Add(-5*time.Minute)))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg := schedule(t, a, tt.in).ErrorCode("BAD_USER_INPUT")
			if !strings.HasPrefix(msg, tt.field) {
				t.Fatalf("message %q does not start with %q", msg, tt.field)
			}
			if strings.HasPrefix(tt.name, "overlapping") && !strings.Contains(msg, taken.ID) {
				t.Fatalf("overlap message %q does not name recording %s", msg, taken.ID)
			}
			if got := counts(); got != before {
				t.Fatalf("items, recordings, series %v, want %v", got, before)
			}
		})
	}
	// Touching is not overlapping.
	scheduleOK(t, a, rec("start", stampT(start.Add(30*time.Minute))))

	before = counts()
	ser := func(kv ...any) map[string]any {
		in := map[string]any{"title": "Daily", "pipelineId": pl, "firstStart": stampT(later.Add(time.Hour)),
			"durationSeconds": 600, "repeat": "daily", "timeZone": "Europe/Berlin"}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(in, kv[i].(string))
			} else {
				in[kv[i].(string)] = kv[i+1]
			}
		}
		return in
	}
	for _, tt := range []struct {
		name, field string
		in          map[string]any
	}{
		{"unknown pipeline", "pipelineId", ser("pipelineId", theirs)},
		{"bad repeat", "repeat", ser("repeat", "hourly")},
		{"bad day", "days", ser("repeat", "days", "days", []string{"funday"})},
		{"bad zone", "timeZone", ser("timeZone", "Europe/Atlantis")},
		{"until before first", "until", ser("until", stampT(later))},
		{"count too high", "count", ser("count", 1000)},
		{"first start in the past", "firstStart", ser("firstStart", stampT(time.Now().Add(-time.Hour)))},
		{"overlapping a recording", "firstStart", ser("firstStart", stampT(start.Add(-24*time.Hour+time.Minute)))},
		{"unknown folder", "folderId", ser("folderId", "0190a0a0-0000-7000-8000-000000000000")},
	} {
		t.Run("series/"+tt.name, func(t *testing.T) {
			msg := createSeries(t, a, tt.in).ErrorCode("BAD_USER_INPUT")
			if !strings.HasPrefix(msg, tt.field) {
				t.Fatalf("message %q does not start with %q", msg, tt.field)
			}
			if got := counts(); got != before {
				t.Fatalf("items, recordings, series %v, want %v", got, before)
			}
		})
	}
}

// A daily series of three occurrences lists correctly for periods that
// cut through it; an exception removes one; a series beyond the horizon
// lists its occurrences without items, and holds its pipeline's times.
func TestLiveScheduledSeriesPeriods(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	pl := livePipeline(t, a, "Studio A")
	first := soon(0)
	var created struct{ CreateRecordingSeries seriesT }
	createSeries(t, a, map[string]any{"title": "Evening news", "pipelineId": pl, "firstStart": stampT(first),
		"durationSeconds": 900, "repeat": "daily", "count": 3, "timeZone": "UTC"}).OK(&created)
	sr := created.CreateRecordingSeries
	if len(sr.Occurrences) != 3 || *sr.Count != 3 {
		t.Fatalf("created: %+v", sr)
	}
	day := 24 * time.Hour
	occ := []time.Time{first, first.Add(day), first.Add(2 * day)}

	all := listScheduled(t, a, first.Add(-time.Minute), first.Add(3*day))
	if len(all.Recordings) != 3 || len(all.Series) != 1 || len(all.Series[0].Occurrences) != 3 {
		t.Fatalf("whole period: %+v", all)
	}
	for i, r := range all.Recordings {
		o := all.Series[0].Occurrences[i]
		if r.Start != stampT(occ[i]) || r.SeriesID == nil || *r.SeriesID != sr.ID || o.ItemID == nil || *o.ItemID != r.ID ||
			o.Start != stampT(occ[i]) || o.End != stampT(occ[i].Add(15*time.Minute)) {
			t.Fatalf("occurrence %d: recording %+v, occurrence %+v", i, r, o)
		}
		if !strings.HasPrefix(r.Title, "Evening news ") {
			t.Fatalf("occurrence title %q", r.Title)
		}
	}

	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     []int
	}{
		{"only the second", occ[1].Add(-time.Hour), occ[1].Add(time.Hour), []int{1}},
		{"from the second's start", occ[1], occ[2], []int{1}},
		{"the second's end to the third's start", occ[1].Add(time.Hour), occ[2], nil},
		{"the last two", occ[1], occ[2].Add(time.Second), []int{1, 2}},
		{"after the last", occ[2].Add(time.Second), occ[2].Add(10 * day), nil},
		{"before the first", first.Add(-10 * day), first, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := listScheduled(t, a, tt.from, tt.to)
			if len(tt.want) == 0 {
				if len(got.Recordings) != 0 || len(got.Series) != 0 {
					t.Fatalf("want nothing, got %+v", got)
				}
				return
			}
			if len(got.Series) != 1 || len(got.Series[0].Occurrences) != len(tt.want) || len(got.Recordings) != len(tt.want) {
				t.Fatalf("want occurrences %v, got %+v", tt.want, got)
			}
			for i, k := range tt.want {
				if got.Series[0].Occurrences[i].Start != stampT(occ[k]) || got.Recordings[i].Start != stampT(occ[k]) {
					t.Fatalf("want occurrences %v, got %+v", tt.want, got)
				}
			}
		})
	}

	// An exception: the second goes, its item with it.
	second := all.Recordings[1].ID
	var removed struct{ RemoveSeriesOccurrence seriesT }
	a.GraphQL(t, `mutation($s: ID!, $at: DateTime!) { removeSeriesOccurrence(seriesId: $s, start: $at) { `+seriesFields+` } }`,
		map[string]any{"s": sr.ID, "at": stampT(occ[1])}).OK(&removed)
	if ex := removed.RemoveSeriesOccurrence.Exceptions; len(ex) != 1 || ex[0] != stampT(occ[1]) {
		t.Fatalf("exceptions %v", ex)
	}
	if got := listScheduled(t, a, occ[1].Add(-time.Hour), occ[1].Add(time.Hour)); len(got.Series) != 0 || len(got.Recordings) != 0 {
		t.Fatalf("the removed occurrence lists: %+v", got)
	}
	if got := listScheduled(t, a, first.Add(-time.Minute), first.Add(3*day)); len(got.Recordings) != 2 ||
		len(got.Series) != 1 || len(got.Series[0].Occurrences) != 2 {
		t.Fatalf("after the exception: %+v", got)
	}
	a.Get(t, "/api/v1/items/"+second).Status(http.StatusNotFound)
	var rec map[string]any
	a.Get(t, scheduledPath+"/"+second).Status(http.StatusOK).JSON(&rec)
	if rec["state"] != "cancelled" {
		t.Fatalf("the removed occurrence's recording: %v", rec)
	}
	msg := a.GraphQL(t, `mutation($s: ID!, $at: DateTime!) { removeSeriesOccurrence(seriesId: $s, start: $at) { id } }`,
		map[string]any{"s": sr.ID, "at": stampT(occ[1].Add(time.Minute))}).ErrorCode("BAD_USER_INPUT")
	if !strings.HasPrefix(msg, "start") {
		t.Fatalf("not an occurrence: %s", msg)
	}
	// The freed time can be scheduled again.
	scheduleOK(t, a, map[string]any{"title": "Special", "pipelineId": pl, "start": stampT(occ[1]), "durationSeconds": 900})

	// A series beyond the horizon: occurrences without items, still
	// holding the pipeline.
	far := first.Add(10 * day)
	var farOut struct{ CreateRecordingSeries seriesT }
	createSeries(t, a, map[string]any{"title": "Weekly show", "pipelineId": pl, "firstStart": stampT(far),
		"durationSeconds": 3600, "repeat": "weekly", "timeZone": "UTC"}).OK(&farOut)
	got := listScheduled(t, a, far.Add(-time.Hour), far.Add(15*day))
	if len(got.Recordings) != 0 || len(got.Series) != 1 || len(got.Series[0].Occurrences) != 3 {
		t.Fatalf("beyond the horizon: %+v", got)
	}
	for _, o := range got.Series[0].Occurrences {
		if o.ItemID != nil {
			t.Fatalf("an occurrence beyond the horizon has an item: %+v", o)
		}
	}
	msg = schedule(t, a, map[string]any{"title": "Clash", "pipelineId": pl, "start": stampT(far.Add(7*day + 30*time.Minute)),
		"durationSeconds": 600}).ErrorCode("BAD_USER_INPUT")
	if !strings.HasPrefix(msg, "start") || !strings.Contains(msg, farOut.CreateRecordingSeries.ID) {
		t.Fatalf("overlap with a series' unmade occurrence: %s", msg)
	}

	// The scheduler's extension makes them as time goes on, once.
	made, err := api.Store.ExtendSeries(t.Context(), far.Add(-6*day), 7*24*time.Hour)
	if err != nil || made != 1 {
		t.Fatalf("ExtendSeries: made %d, %v; want 1", made, err)
	}
	if made, err := api.Store.ExtendSeries(t.Context(), far.Add(-6*day), 7*24*time.Hour); err != nil || made != 0 {
		t.Fatalf("ExtendSeries again: made %d, %v; want 0", made, err)
	}
	got = listScheduled(t, a, far.Add(-time.Hour), far.Add(15*day))
	if len(got.Recordings) != 1 || got.Series[0].Occurrences[0].ItemID == nil || *got.Series[0].Occurrences[0].ItemID != got.Recordings[0].ID {
		t.Fatalf("after extension: %+v", got)
	}

	// Deleting a series cancels what has not started.
	var del struct {
		DeleteRecordingSeries struct {
			ID        string
			Cancelled []string
		}
	}
	a.GraphQL(t, `mutation($id: ID!) { deleteRecordingSeries(id: $id) { id cancelled } }`,
		map[string]any{"id": sr.ID}).OK(&del)
	if len(del.DeleteRecordingSeries.Cancelled) != 2 {
		t.Fatalf("deleted series: %+v", del)
	}
	if got := listScheduled(t, a, first.Add(-time.Minute), first.Add(3*day)); len(got.Series) != 0 || len(got.Recordings) != 1 ||
		got.Recordings[0].Title != "Special" {
		t.Fatalf("after deleting the series: %+v", got)
	}

	// Periods: defaults and bad parameters.
	var def scheduledT
	a.Get(t, scheduledPath).Status(http.StatusOK).JSON(&def)
	if def.Recordings == nil || def.Series == nil {
		t.Fatalf("default period: %+v", def)
	}
	for param, q := range map[string]string{
		"from": "?from=yesterday", "to": "?to=2020-13-01T00:00:00Z",
	} {
		env := a.Get(t, scheduledPath+q).Envelope(http.StatusBadRequest, "")
		if m, _ := env["message"].(string); !strings.HasPrefix(m, param) {
			t.Fatalf("%s: message %q", q, m)
		}
	}
	env := a.Get(t, scheduledPath+"?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z").Envelope(http.StatusBadRequest, "")
	if m, _ := env["message"].(string); !strings.HasPrefix(m, "to") {
		t.Fatalf("to before from: %q", m)
	}
	a.Get(t, scheduledPath+"?from=2030-01-01T00:00:00Z&to=2031-06-01T00:00:00Z").Envelope(http.StatusBadRequest, "")
}

// One recording: its record; an item that is not a recording is the
// spec's 400; a missing or another tenant's id is a 404 (null in GraphQL).
func TestLiveScheduledRecordingByID(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	b := api.Tenant(t, "b")
	pl := livePipeline(t, a, "Studio A")
	r := scheduleOK(t, a, map[string]any{"title": "Match", "pipelineId": pl, "start": stampT(soon(0)),
		"end": stampT(soon(90 * time.Minute))})

	var rec map[string]any
	a.Get(t, scheduledPath+"/"+r.ID).Status(http.StatusOK).JSON(&rec)
	for _, k := range []string{"id", "title", "pipelineId", "seriesId", "folderId", "start", "end", "durationSeconds", "state",
		"recordedSeconds", "gaps", "error", "crash", "recordingNode", "startedOn", "endedOn", "createdByUserId", "createdOn", "proxy"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("record lacks %s: %v", k, rec)
		}
	}
	if rec["id"] != r.ID || rec["state"] != "scheduled" || rec["durationSeconds"] != float64(5400) || rec["pipelineId"] != pl {
		t.Fatalf("record: %v", rec)
	}

	plain := a.CreateItem(t, map[string]any{"title": "Clip", "itemType": "video"})
	a.Get(t, scheduledPath+"/"+plain).Envelope(http.StatusBadRequest, fmt.Sprintf("Item %s is not a scheduled recording item", plain))
	msg := a.GraphQL(t, `query($id: ID!) { scheduledRecording(id: $id) { id } }`, map[string]any{"id": plain}).ErrorCode("BAD_USER_INPUT")
	if msg != fmt.Sprintf("Item %s is not a scheduled recording item", plain) {
		t.Fatalf("graphql message %q", msg)
	}
	a.Get(t, scheduledPath+"/0190a0a0-0000-7000-8000-000000000000").Envelope(http.StatusNotFound, "")
	a.Get(t, scheduledPath+"/not-an-id").Envelope(http.StatusNotFound, "")
	b.Get(t, scheduledPath+"/"+r.ID).Envelope(http.StatusNotFound, "")
	var out struct{ ScheduledRecording *recordingT }
	b.GraphQL(t, `query($id: ID!) { scheduledRecording(id: $id) { id } }`, map[string]any{"id": r.ID}).OK(&out)
	if out.ScheduledRecording != nil {
		t.Fatalf("b reads a's recording: %+v", out.ScheduledRecording)
	}
	b.GraphQL(t, `mutation($id: ID!) { cancelScheduledRecording(id: $id) { id } }`, map[string]any{"id": r.ID}).ErrorCode("NOT_FOUND")
	if got := listScheduled(t, b, time.Now(), time.Now().Add(7*24*time.Hour)); len(got.Recordings) != 0 {
		t.Fatalf("b lists a's recordings: %+v", got)
	}

	// Item.recording.
	var it struct {
		Item struct{ Recording *recordingT }
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { recording { `+recordingFields+` } } }`, map[string]any{"id": r.ID}).OK(&it)
	if it.Item.Recording == nil || it.Item.Recording.ID != r.ID {
		t.Fatalf("Item.recording: %+v", it)
	}
	a.GraphQL(t, `query($id: ID!) { item(id: $id) { recording { id } } }`, map[string]any{"id": plain}).OK(&it)
	if it.Item.Recording != nil {
		t.Fatalf("a plain item's recording: %+v", it.Item.Recording)
	}
}

// Changing and cancelling a recording.
func TestLiveScheduledRecordingChanges(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	pl := livePipeline(t, a, "Studio A")
	start := soon(0)
	r := scheduleOK(t, a, map[string]any{"title": "Match", "pipelineId": pl, "start": stampT(start), "durationSeconds": 600})
	other := scheduleOK(t, a, map[string]any{"title": "Next", "pipelineId": pl, "start": stampT(start.Add(time.Hour)),
		"durationSeconds": 600})

	var up struct{ UpdateScheduledRecording recordingT }
	a.GraphQL(t, `mutation($id: ID!, $i: UpdateScheduledRecordingInput!) { updateScheduledRecording(id: $id, input: $i) { `+
		recordingFields+` } }`, map[string]any{"id": r.ID, "i": map[string]any{"title": "Final", "durationSeconds": 1200}}).OK(&up)
	if u := up.UpdateScheduledRecording; u.Title != "Final" || u.DurationSeconds != 1200 || u.End != stampT(start.Add(20*time.Minute)) {
		t.Fatalf("updated: %+v", u)
	}
	msg := a.GraphQL(t, `mutation($id: ID!, $i: UpdateScheduledRecordingInput!) { updateScheduledRecording(id: $id, input: $i) { id } }`,
		map[string]any{"id": r.ID, "i": map[string]any{"end": stampT(start.Add(65 * time.Minute))}}).ErrorCode("BAD_USER_INPUT")
	if !strings.HasPrefix(msg, "start") || !strings.Contains(msg, other.ID) {
		t.Fatalf("an update onto another recording: %s", msg)
	}

	var c struct{ CancelScheduledRecording recordingT }
	a.GraphQL(t, `mutation($id: ID!) { cancelScheduledRecording(id: $id) { `+recordingFields+` } }`,
		map[string]any{"id": r.ID}).OK(&c)
	if c.CancelScheduledRecording.State != "cancelled" {
		t.Fatalf("cancelled: %+v", c)
	}
	a.Get(t, "/api/v1/items/"+r.ID).Status(http.StatusNotFound)
	if n := api.Count(t, `SELECT count(*) FROM events WHERE item_id = $1 AND type = 'itemDeletion'`, r.ID); n != 1 {
		t.Fatalf("%d deletion events", n)
	}
	msg = a.GraphQL(t, `mutation($id: ID!) { cancelScheduledRecording(id: $id) { id } }`, map[string]any{"id": r.ID}).
		ErrorCode("BAD_USER_INPUT")
	if !strings.Contains(msg, "cancelled") {
		t.Fatalf("cancelling twice: %s", msg)
	}
	// Its time is free again.
	scheduleOK(t, a, map[string]any{"title": "Again", "pipelineId": pl, "start": stampT(start), "durationSeconds": 600})

	// A recording running is stopped: its end becomes now.
	running := scheduleOK(t, a, map[string]any{"title": "Live", "pipelineId": pl, "start": stampT(start.Add(3 * time.Hour)),
		"durationSeconds": 600})
	if _, err := api.DB.Exec(`UPDATE live_recordings SET state = 'recording', starts_on = now() - interval '1 minute',
		ends_on = now() + interval '1 hour', lease_node = 'elsewhere', lease_until = now() + interval '1 hour'
		WHERE item_id = $1`, running.ID); err != nil {
		t.Fatal(err)
	}
	a.GraphQL(t, `mutation($id: ID!) { cancelScheduledRecording(id: $id) { `+recordingFields+` } }`,
		map[string]any{"id": running.ID}).OK(&c)
	if end, _ := time.Parse(time.RFC3339, c.CancelScheduledRecording.End); c.CancelScheduledRecording.State != "recording" ||
		time.Since(end) > time.Minute || time.Until(end) > time.Second {
		t.Fatalf("stopped: %+v", c.CancelScheduledRecording)
	}
	a.Get(t, "/api/v1/items/"+running.ID).Status(http.StatusOK)
}

// Two schedules of overlapping times on one pipeline, sent at once:
// exactly one is made.
func TestLiveScheduledConcurrentRecordings(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	pl := livePipeline(t, a, "Studio A")
	start := soon(0)
	const n = 8
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ok   int
		bad  int
		errs []string
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := schedule(t, a, map[string]any{"title": fmt.Sprintf("Race %d", i), "pipelineId": pl,
				"start": stampT(start.Add(time.Duration(i) * time.Minute)), "durationSeconds": 1800})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case len(g.Errors) == 0:
				ok++
			case g.Errors[0].Extensions["code"] == "BAD_USER_INPUT" && strings.HasPrefix(g.Errors[0].Message, "start"):
				bad++
			default:
				errs = append(errs, fmt.Sprint(g.Errors))
			}
		}()
	}
	wg.Wait()
	if ok != 1 || bad != n-1 || len(errs) > 0 {
		t.Fatalf("%d made, %d refused, other errors %v; want 1 and %d", ok, bad, errs, n-1)
	}
	if got := api.Count(t, `SELECT count(*) FROM live_recordings`); got != 1 {
		t.Fatalf("%d recordings", got)
	}
	if got := api.Count(t, `SELECT count(*) FROM items WHERE item_type = 'video'`); got != 1 {
		t.Fatalf("%d recording items", got)
	}
}

// Item.recording of a page of items is one query, whatever its size.
func TestLiveScheduledRecordingLoaderBatches(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	pl := livePipeline(t, a, "Studio A")
	start := soon(0)
	for i := range 8 {
		scheduleOK(t, a, map[string]any{"title": fmt.Sprintf("Rec %d", i), "pipelineId": pl,
			"start": stampT(start.Add(time.Duration(i) * time.Hour)), "durationSeconds": 600})
		a.CreateItem(t, map[string]any{"title": fmt.Sprintf("Clip %d", i), "itemType": "video"})
	}
	const query = `query($n: Int) { items(first: $n, filter: {itemType: "video"}) { nodes { id recording { id state } } } }`
	costs := map[int]int64{}
	for _, n := range []int{2, 16, 2, 16} {
		var out struct {
			Items struct {
				Nodes []struct {
					ID        string
					Recording *struct{ ID, State string }
				}
			}
		}
		api.Statements.Reset()
		g := a.GraphQL(t, query, map[string]any{"n": n})
		cost := api.Statements.Count()
		g.OK(&out)
		recs := 0
		for _, it := range out.Items.Nodes {
			if it.Recording != nil {
				if it.Recording.ID != it.ID || it.Recording.State != "scheduled" {
					t.Fatalf("item %s: recording %+v", it.ID, it.Recording)
				}
				recs++
			}
		}
		if len(out.Items.Nodes) != n || (n == 16 && recs != 8) {
			t.Fatalf("first %d: %d nodes, %d recordings", n, len(out.Items.Nodes), recs)
		}
		if c, ok := costs[n]; ok && c != cost {
			t.Fatalf("first %d cost %d then %d statements", n, c, cost)
		}
		costs[n] = cost
	}
	if costs[2] != costs[16] {
		t.Fatalf("statements: %v; want the same for 2 and 16 items (Item.recording is not batched)", costs)
	}
}

// Deleting a recording's item cancels it (its time on the pipeline is
// free again); a pipeline with a recording to make cannot be deleted
// until that is cancelled.
func TestLiveScheduledDeletes(t *testing.T) {
	api := liveAPI(t)
	a := api.Tenant(t, "a")
	pl := livePipeline(t, a, "Studio A")
	start := soon(0)
	r := scheduleOK(t, a, map[string]any{"title": "Match", "pipelineId": pl, "start": stampT(start), "durationSeconds": 600})
	a.Delete(t, "/api/v1/items/"+r.ID).Status(http.StatusOK)
	if n := api.Count(t, `SELECT count(*) FROM live_recordings WHERE item_id = $1 AND state = 'cancelled'`, r.ID); n != 1 {
		t.Fatalf("a deleted item's recording is not cancelled")
	}
	again := scheduleOK(t, a, map[string]any{"title": "Again", "pipelineId": pl, "start": stampT(start), "durationSeconds": 600})

	del := `mutation($id: ID!) { deleteLivePipeline(id: $id) { id } }`
	msg := a.GraphQL(t, del, map[string]any{"id": pl}).ErrorCode("BAD_USER_INPUT")
	if !strings.Contains(msg, "recordings to make") {
		t.Fatalf("deleting a pipeline in use: %s", msg)
	}
	if n := api.Count(t, `SELECT count(*) FROM live_pipelines WHERE id = $1`, pl); n != 1 {
		t.Fatal("the pipeline in use was deleted")
	}
	a.GraphQL(t, `mutation($id: ID!) { cancelScheduledRecording(id: $id) { id } }`, map[string]any{"id": again.ID}).OK(nil)
	a.GraphQL(t, del, map[string]any{"id": pl}).OK(nil)
	if n := api.Count(t, `SELECT count(*) FROM live_pipelines WHERE id = $1`, pl); n != 0 {
		t.Fatal("the pipeline was not deleted")
	}
}
