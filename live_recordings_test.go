package loupe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loupe-mam/loupe"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func ptrTo[T any](v T) *T { return &v }

func stamps(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.UTC().Format(time.RFC3339)
	}
	return out
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// Occurrences keep the wall-clock time across DST changes, skip
// exceptions (which still count), stop at until and count, and answer
// only those of the period asked.
func TestSeriesOccurrences(t *testing.T) {
	berlin, york := zone(t, "Europe/Berlin"), zone(t, "America/New_York")
	far := at("2040-01-01T00:00:00Z")
	tests := []struct {
		name     string
		rule     loupe.SeriesRule
		from, to time.Time
		want     []string
	}{
		{"daily, count 3", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC, Repeat: loupe.SeriesDaily,
			Count: ptrTo(3)}, at("2030-01-01T00:00:00Z"), far,
			[]string{"2030-03-01T18:00:00Z", "2030-03-02T18:00:00Z", "2030-03-03T18:00:00Z"}},
		{"a period with only the second", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily, Count: ptrTo(3)}, at("2030-03-02T00:00:00Z"), at("2030-03-03T00:00:00Z"),
			[]string{"2030-03-02T18:00:00Z"}},
		{"a period ending at a start leaves it out", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily, Count: ptrTo(3)}, at("2030-03-01T18:00:00Z"), at("2030-03-02T18:00:00Z"),
			[]string{"2030-03-01T18:00:00Z"}},
		{"a period after the last", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily, Count: ptrTo(3)}, at("2030-03-03T18:00:01Z"), far, []string{}},
		{"a period before the first", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily, Count: ptrTo(3)}, at("2030-02-01T00:00:00Z"), at("2030-03-01T18:00:00Z"), []string{}},
		{"weekly until", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC, Repeat: loupe.SeriesWeekly,
			Until: ptrTo(at("2030-03-15T18:00:00Z"))}, at("2030-01-01T00:00:00Z"), far,
			[]string{"2030-03-01T18:00:00Z", "2030-03-08T18:00:00Z", "2030-03-15T18:00:00Z"}},
		// 2030-03-04 is a Monday; the first start is on a Tuesday.
		{"days mon, wed, fri", loupe.SeriesRule{FirstStart: at("2030-03-05T06:00:00Z"), Loc: time.UTC, Repeat: loupe.SeriesDays,
			Weekdays: []int{1, 3, 5}, Count: ptrTo(4)}, at("2030-01-01T00:00:00Z"), far,
			[]string{"2030-03-06T06:00:00Z", "2030-03-08T06:00:00Z", "2030-03-11T06:00:00Z", "2030-03-13T06:00:00Z"}},
		// Berlin goes to summer time on Sunday 2030-03-31: 20:00 local is
		// 19:00Z before, 18:00Z after.
		{"daily across spring forward", loupe.SeriesRule{FirstStart: at("2030-03-29T19:00:00Z"), Loc: berlin,
			Repeat: loupe.SeriesDaily, Count: ptrTo(4)}, at("2030-01-01T00:00:00Z"), far,
			[]string{"2030-03-29T19:00:00Z", "2030-03-30T19:00:00Z", "2030-03-31T18:00:00Z", "2030-04-01T18:00:00Z"}},
		// New York goes back on Sunday 2030-11-03: 08:00 local is 12:00Z,
		// then 13:00Z.
		{"daily across fall back", loupe.SeriesRule{FirstStart: at("2030-11-02T12:00:00Z"), Loc: york,
			Repeat: loupe.SeriesDaily, Count: ptrTo(2)}, at("2030-01-01T00:00:00Z"), far,
			[]string{"2030-11-02T12:00:00Z", "2030-11-03T13:00:00Z"}},
		{"weekly across spring forward", loupe.SeriesRule{FirstStart: at("2030-03-24T19:00:00Z"), Loc: berlin,
			Repeat: loupe.SeriesWeekly, Count: ptrTo(2)}, at("2030-01-01T00:00:00Z"), far,
			[]string{"2030-03-24T19:00:00Z", "2030-03-31T18:00:00Z"}},
		{"exceptions are left out and count", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily, Count: ptrTo(3), Exceptions: []time.Time{at("2030-03-02T18:00:00Z")}},
			at("2030-01-01T00:00:00Z"), far, []string{"2030-03-01T18:00:00Z", "2030-03-03T18:00:00Z"}},
		{"until and count: the first reached", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily, Count: ptrTo(5), Until: ptrTo(at("2030-03-02T18:00:00Z"))},
			at("2030-01-01T00:00:00Z"), far, []string{"2030-03-01T18:00:00Z", "2030-03-02T18:00:00Z"}},
		{"unbounded, read far ahead", loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC,
			Repeat: loupe.SeriesDaily}, at("2031-03-01T00:00:00Z"), at("2031-03-03T00:00:00Z"),
			[]string{"2031-03-01T18:00:00Z", "2031-03-02T18:00:00Z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stamps(tt.rule.Occurrences(tt.from, tt.to, 100, true))
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSeriesRuleHas(t *testing.T) {
	r := loupe.SeriesRule{FirstStart: at("2030-03-01T18:00:00Z"), Loc: time.UTC, Repeat: loupe.SeriesDaily, Count: ptrTo(3),
		Exceptions: []time.Time{at("2030-03-02T18:00:00Z")}}
	for s, want := range map[string]bool{"2030-03-01T18:00:00Z": true, "2030-03-02T18:00:00Z": true,
		"2030-03-03T18:00:00Z": true, "2030-03-04T18:00:00Z": false, "2030-03-02T17:00:00Z": false} {
		if got := r.Has(at(s)); got != want {
			t.Errorf("Has(%s) = %v, want %v", s, got, want)
		}
	}
	if !r.Excepted(at("2030-03-02T18:00:00Z")) || r.Excepted(at("2030-03-01T18:00:00Z")) {
		t.Fatal("Excepted is wrong")
	}
}

// Every bad input names its field.
func TestRecordingAndSeriesValidation(t *testing.T) {
	now := at("2030-03-01T12:00:00Z")
	pl := "01900000-0000-7000-8000-000000000001"
	rec := func(f func(*loupe.ScheduleRecordingInput)) loupe.ScheduleRecordingInput {
		in := loupe.ScheduleRecordingInput{Title: ptrTo("News"), PipelineID: pl, Start: at("2030-03-01T18:00:00Z"),
			DurationSeconds: ptrTo(600)}
		f(&in)
		return in
	}
	recTests := []struct {
		name  string
		in    loupe.ScheduleRecordingInput
		field string
	}{
		{"no title", rec(func(in *loupe.ScheduleRecordingInput) { in.Title = nil }), "title"},
		{"blank title", rec(func(in *loupe.ScheduleRecordingInput) { in.Title = ptrTo("  ") }), "title"},
		{"bad pipeline", rec(func(in *loupe.ScheduleRecordingInput) { in.PipelineID = "x" }), "pipelineId"},
		{"bad folder", rec(func(in *loupe.ScheduleRecordingInput) { in.FolderID = ptrTo("x") }), "folderId"},
		{"start in the past", rec(func(in *loupe.ScheduleRecordingInput) { in.Start = now.Add(-time.Minute) }), "start"},
		{"end before start", rec(func(in *loupe.ScheduleRecordingInput) {
			in.DurationSeconds, in.End = nil, ptrTo(at("2030-03-01T17:00:00Z"))
		}), "end"},
		{"end at start", rec(func(in *loupe.ScheduleRecordingInput) {
			in.DurationSeconds, in.End = nil, ptrTo(at("2030-03-01T18:00:00Z"))
		}), "end"},
		{"end and duration", rec(func(in *loupe.ScheduleRecordingInput) { in.End = ptrTo(at("2030-03-01T19:00:00Z")) }),
			"end and durationSeconds"},
		{"neither", rec(func(in *loupe.ScheduleRecordingInput) { in.DurationSeconds = nil }), "end or durationSeconds"},
		{"over 24 h", rec(func(in *loupe.ScheduleRecordingInput) { in.DurationSeconds = ptrTo(86401) }), "durationSeconds"},
		{"end over 24 h", rec(func(in *loupe.ScheduleRecordingInput) {
			in.DurationSeconds, in.End = nil, ptrTo(at("2030-03-02T18:00:01Z"))
		}), "durationSeconds"},
		{"zero duration", rec(func(in *loupe.ScheduleRecordingInput) { in.DurationSeconds = ptrTo(0) }), "durationSeconds"},
	}
	for _, tt := range recTests {
		t.Run("recording/"+tt.name, func(t *testing.T) {
			_, err := tt.in.Plan(now)
			wantField(t, err, tt.field)
		})
	}
	slack := rec(func(in *loupe.ScheduleRecordingInput) { in.Start = now.Add(-3 * time.Second) })
	if _, err := slack.Plan(now); err != nil {
		t.Fatalf("a start within the clock slack: %v", err)
	}

	ser := func(f func(*loupe.RecordingSeriesInput)) loupe.RecordingSeriesInput {
		in := loupe.RecordingSeriesInput{Title: ptrTo("News"), PipelineID: pl, FirstStart: at("2030-03-01T18:00:00Z"),
			DurationSeconds: 1800, Repeat: loupe.SeriesDaily}
		f(&in)
		return in
	}
	serTests := []struct {
		name  string
		in    loupe.RecordingSeriesInput
		field string
	}{
		{"no title", ser(func(in *loupe.RecordingSeriesInput) { in.Title = nil }), "title"},
		{"first start in the past", ser(func(in *loupe.RecordingSeriesInput) { in.FirstStart = now.Add(-time.Hour) }), "firstStart"},
		{"bad time zone", ser(func(in *loupe.RecordingSeriesInput) { in.TimeZone = ptrTo("Mars/Olympus") }), "timeZone"},
		{"local time zone", ser(func(in *loupe.RecordingSeriesInput) { in.TimeZone = ptrTo("Local") }), "timeZone"},
		{"bad repeat", ser(func(in *loupe.RecordingSeriesInput) { in.Repeat = "hourly" }), "repeat"},
		{"days without repeat days", ser(func(in *loupe.RecordingSeriesInput) { in.Days = []string{"monday"} }), "days"},
		{"repeat days without days", ser(func(in *loupe.RecordingSeriesInput) { in.Repeat = loupe.SeriesDays }), "days"},
		{"an unknown day", ser(func(in *loupe.RecordingSeriesInput) {
			in.Repeat, in.Days = loupe.SeriesDays, []string{"monday", "someday"}
		}), "days"},
		{"a day twice", ser(func(in *loupe.RecordingSeriesInput) {
			in.Repeat, in.Days = loupe.SeriesDays, []string{"monday", "Monday"}
		}), "days"},
		{"count 0", ser(func(in *loupe.RecordingSeriesInput) { in.Count = ptrTo(0) }), "count"},
		{"count too high", ser(func(in *loupe.RecordingSeriesInput) { in.Count = ptrTo(367) }), "count"},
		{"until before first", ser(func(in *loupe.RecordingSeriesInput) { in.Until = ptrTo(at("2030-03-01T17:00:00Z")) }), "until"},
		{"no occurrence before until", ser(func(in *loupe.RecordingSeriesInput) {
			// 2030-03-01 is a Friday; the first Monday is after until.
			in.Repeat, in.Days, in.Until = loupe.SeriesDays, []string{"monday"}, ptrTo(at("2030-03-02T18:00:00Z"))
		}), "until"},
		{"duration over 24 h", ser(func(in *loupe.RecordingSeriesInput) { in.DurationSeconds = 86401 }), "durationSeconds"},
		// Berlin's day of the spring change has 23 hours: 24 h daily
		// occurrences overlap there.
		{"occurrences overlap across DST", ser(func(in *loupe.RecordingSeriesInput) {
			in.TimeZone, in.DurationSeconds, in.FirstStart = ptrTo("Europe/Berlin"), 86400, at("2030-03-29T19:00:00Z")
		}), "durationSeconds"},
		{"weekday occurrences that touch", ser(func(in *loupe.RecordingSeriesInput) {
			in.Repeat, in.Days, in.DurationSeconds = loupe.SeriesDays, []string{"monday", "tuesday"}, 86400
			in.FirstStart = at("2030-03-04T18:00:00Z")
			in.Count = ptrTo(2) // Monday 18:00 + 24 h touches Tuesday 18:00
		}), ""},
	}
	for _, tt := range serTests {
		t.Run("series/"+tt.name, func(t *testing.T) {
			_, err := tt.in.Plan(now, "UTC")
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantField(t, err, tt.field)
		})
	}
	// A daily series of 24 h occurrences touches, not overlaps, without
	// a DST change.
	ok := ser(func(in *loupe.RecordingSeriesInput) { in.DurationSeconds = 86400; in.Count = ptrTo(10) })
	if _, err := ok.Plan(now, "UTC"); err != nil {
		t.Fatalf("24 h daily occurrences in UTC: %v", err)
	}
	days := ser(func(in *loupe.RecordingSeriesInput) {
		in.Repeat, in.Days = loupe.SeriesDays, []string{"friday", "Monday"}
	})
	plan, err := days.Plan(now, "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Rule.Weekdays; len(got) != 2 || got[0] != 1 || got[1] != 5 || plan.TimeZone != "Europe/Berlin" {
		t.Fatalf("plan: weekdays %v, zone %s", got, plan.TimeZone)
	}
}

func wantField(t *testing.T, err error, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one naming %s", field)
	}
	if loupe.ErrorKind(err) != loupe.EINVALID {
		t.Fatalf("error %v is not EINVALID", err)
	}
	if msg := err.(*loupe.Error).Message; !strings.HasPrefix(msg, field) {
		t.Fatalf("message %q does not start with the field %q", msg, field)
	}
}

func TestRecordingChange(t *testing.T) {
	now := at("2030-03-01T12:00:00Z")
	cur := &loupe.ScheduledRecording{ItemID: "i", State: loupe.RecordingScheduled, StartsOn: at("2030-03-01T18:00:00Z"),
		EndsOn: at("2030-03-01T19:00:00Z")}
	ch, err := (&loupe.UpdateScheduledRecordingInput{Start: ptrTo(at("2030-03-01T20:00:00Z"))}).Change(cur, now)
	if err != nil || !ch.End.Equal(at("2030-03-01T21:00:00Z")) {
		t.Fatalf("a new start keeps the duration: %+v, %v", ch, err)
	}
	running := *cur
	running.State, running.StartsOn = loupe.RecordingRecording, at("2030-03-01T11:30:00Z")
	if ch, err := (&loupe.UpdateScheduledRecordingInput{DurationSeconds: ptrTo(7200)}).Change(&running, now); err != nil ||
		!ch.End.Equal(at("2030-03-01T13:30:00Z")) {
		t.Fatalf("extending a running recording: %+v, %v", ch, err)
	}
	for name, tt := range map[string]struct {
		cur   *loupe.ScheduledRecording
		in    loupe.UpdateScheduledRecordingInput
		field string
	}{
		"title while recording":    {&running, loupe.UpdateScheduledRecordingInput{Title: ptrTo("x")}, "title"},
		"start while recording":    {&running, loupe.UpdateScheduledRecordingInput{Start: ptrTo(now.Add(time.Hour))}, "start"},
		"end in the past, running": {&running, loupe.UpdateScheduledRecordingInput{End: ptrTo(now.Add(-time.Minute))}, "end"},
		"start in the past":        {cur, loupe.UpdateScheduledRecordingInput{Start: ptrTo(now.Add(-time.Hour))}, "start"},
		"end before start":         {cur, loupe.UpdateScheduledRecordingInput{End: ptrTo(at("2030-03-01T17:00:00Z"))}, "end"},
		"nothing":                  {cur, loupe.UpdateScheduledRecordingInput{}, "the input changes nothing"},
		"finished":                 {&loupe.ScheduledRecording{State: loupe.RecordingComplete}, loupe.UpdateScheduledRecordingInput{Title: ptrTo("x")}, "the recording is complete"},
		"a series' start": {&loupe.ScheduledRecording{State: loupe.RecordingScheduled, SeriesID: ptrTo("s"), StartsOn: cur.StartsOn,
			EndsOn: cur.EndsOn}, loupe.UpdateScheduledRecordingInput{Start: ptrTo(at("2030-03-01T20:00:00Z"))}, "start"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tt.in.Change(tt.cur, now)
			wantField(t, err, tt.field)
		})
	}
}

func TestPeriod(t *testing.T) {
	now := at("2030-03-01T12:00:00Z")
	f, to, err := loupe.Period(nil, nil, now)
	if err != nil || !f.Equal(now) || !to.Equal(now.Add(7*24*time.Hour)) {
		t.Fatalf("defaults: %s %s %v", f, to, err)
	}
	if _, _, err := loupe.Period(ptrTo(now), ptrTo(now), now); err == nil || !strings.HasPrefix(err.(*loupe.Error).Message, "to") {
		t.Fatalf("to = from: %v", err)
	}
	if _, _, err := loupe.Period(ptrTo(now), ptrTo(now.Add(367*24*time.Hour)), now); err == nil {
		t.Fatal("a period of 367 days is accepted")
	}
	if err := loupe.CheckPeriodParam("from")("yesterday"); err == nil || !strings.HasPrefix(err.(*loupe.Error).Message, "from") {
		t.Fatalf("bad from: %v", err)
	}
	if got := loupe.CrashTitle("Crash", "Europe/Berlin", at("2030-07-01T10:00:00Z")); got != "Crash 2030-07-01 12:00:00" {
		t.Fatalf("crash title %q", got)
	}
}
