package loupe

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Scheduled recordings and series (spec 4.6, 2.12 recordings keys;
// docs/live.md "Scheduled recordings"). A scheduled recording is an item
// (video, or audio for an audioOnly pipeline) with a start, an end, a
// pipeline that records it and a state; a series repeats one (daily,
// weekly, on given weekdays) at the same wall-clock time in its time zone
// and makes one recording item per occurrence, SeriesHorizon ahead.

// Limits of recordings and series.
const (
	// MaxRecordingSeconds bounds one recording (and a series' occurrence).
	MaxRecordingSeconds = 24 * 60 * 60
	// RecordingClockSlack is how far in the past a start may lie (a
	// client's clock, the request's own time).
	RecordingClockSlack = 5 * time.Second
	// SeriesHorizon is how far ahead a series has its occurrences' items.
	SeriesHorizon = 7 * 24 * time.Hour
	// MaxSeriesCount bounds a series' count (its number of occurrences).
	MaxSeriesCount = 366
	// MaxSeriesExceptions bounds the occurrences removed from a series.
	MaxSeriesExceptions = 366
	// MaxLiveSeries is how many series a tenant may have.
	MaxLiveSeries = 500
	// SeriesCheckSpan bounds the occurrences checked for overlaps when a
	// series is created: those starting within it of now.
	SeriesCheckSpan = 366 * 24 * time.Hour
	// MaxScheduledListed bounds the recordings of one listing (the
	// earliest starts of the period); the listing says so.
	MaxScheduledListed = 1000
	// DefaultScheduledPeriod is a listing's period without to; a period is
	// at most MaxScheduledPeriod.
	DefaultScheduledPeriod = 7 * 24 * time.Hour
	MaxScheduledPeriod     = 366 * 24 * time.Hour
	// maxSeriesSteps bounds the days an occurrence search walks (a
	// series started long ago and read far ahead).
	maxSeriesSteps = 100 * 366
)

// States of a recording: scheduled → recording → finishing → complete or
// failed; cancelled before it started.
const (
	RecordingScheduled = "scheduled"
	RecordingRecording = "recording"
	RecordingFinishing = "finishing"
	RecordingComplete  = "complete"
	RecordingFailed    = "failed"
	RecordingCancelled = "cancelled"
)

// Repeats of a series.
const (
	SeriesDaily  = "daily"
	SeriesWeekly = "weekly"
	// SeriesDays repeats on the ISO weekdays of its days.
	SeriesDays = "days"
)

// weekdayNames are the days of a series, by ISO number (1 = Monday).
var weekdayNames = []string{"", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// MsgNotRecording is the spec's 400 for an item that is not a scheduled
// recording (section 7).
const MsgNotRecording = "Item %s is not a scheduled recording item"

// NotRecording is that error for item id.
func NotRecording(id string) *Error { return Invalid(MsgNotRecording, id) }

// RecordingGap is a time the recording has no media from its source (the
// source went away, the recording node changed); To is nil while it lasts.
type RecordingGap struct {
	From   time.Time  `json:"from"`
	To     *time.Time `json:"to"`
	Reason string     `json:"reason"`
}

// ScheduledRecording is a recording item's schedule and state: the
// live_recordings row with its item's title and first folder.
type ScheduledRecording struct {
	TenantID   string    `db:"tenant_id" json:"-"`
	ItemID     string    `db:"item_id"`
	Title      string    `db:"title"`
	FolderID   *string   `db:"folder_id"`
	PipelineID string    `db:"pipeline_id"`
	SeriesID   *string   `db:"series_id"`
	StartsOn   time.Time `db:"starts_on"`
	EndsOn     time.Time `db:"ends_on"`
	// Crash: started at once (startCrashRecording), not scheduled.
	Crash bool   `db:"crash"`
	State string `db:"state"`
	// Error says why a failed recording failed (empty otherwise).
	Error           string     `db:"error"`
	LeaseNode       string     `db:"lease_node"`
	RecordedSeconds float64    `db:"recorded_seconds"`
	GapsJSON        []byte     `db:"gaps"`
	StartedOn       *time.Time `db:"started_on"`
	EndedOn         *time.Time `db:"ended_on"`
	CreatedByUser   string     `db:"created_by"`
	CreatedOn       time.Time  `db:"created_on"`
}

// Fields of the record (gqlgen binds them).

func (r *ScheduledRecording) ID() string              { return r.ItemID }
func (r *ScheduledRecording) Start() time.Time        { return r.StartsOn }
func (r *ScheduledRecording) End() time.Time          { return r.EndsOn }
func (r *ScheduledRecording) CreatedByUserID() string { return r.CreatedByUser }

// DurationSeconds is the scheduled length (end − start), whole seconds.
func (r *ScheduledRecording) DurationSeconds() int {
	return int(r.EndsOn.Sub(r.StartsOn) / time.Second)
}

// RecordingNode is the node recording it (nil unless recording or
// finishing).
func (r *ScheduledRecording) RecordingNode() *string {
	if r.LeaseNode == "" || (r.State != RecordingRecording && r.State != RecordingFinishing) {
		return nil
	}
	n := r.LeaseNode
	return &n
}

// Gaps are the times without media so far.
func (r *ScheduledRecording) Gaps() []*RecordingGap {
	out := []*RecordingGap{}
	if len(r.GapsJSON) > 0 {
		_ = json.Unmarshal(r.GapsJSON, &out)
	}
	return out
}

// Open says whether the recording still holds its pipeline's time:
// scheduled, recording or finishing.
func (r *ScheduledRecording) Open() bool {
	return r.State == RecordingScheduled || r.State == RecordingRecording || r.State == RecordingFinishing
}

// ScheduleRecordingInput schedules one recording (scheduleRecording).
type ScheduleRecordingInput struct {
	Title      *string            `json:"title,omitempty"`
	PipelineID string             `json:"pipelineId"`
	FolderID   *string            `json:"folderId,omitempty"`
	Metadata   *ItemMetadataInput `json:"metadata,omitempty"`
	Start      time.Time          `json:"start"`
	// End or DurationSeconds, one of them.
	End             *time.Time `json:"end,omitempty"`
	DurationSeconds *int       `json:"durationSeconds,omitempty"`
}

// RecordingPlan is a checked recording to make.
type RecordingPlan struct {
	Title      string
	PipelineID string
	FolderID   *string
	Metadata   *ItemMetadataInput
	Start, End time.Time
	Crash      bool
}

// checkTitle trims a title and checks it (field names it).
func checkTitle(field string, t *string) (string, error) {
	if t == nil {
		return "", Invalid("%s is required", field)
	}
	s := strings.TrimSpace(*t)
	if s == "" || len(s) > MaxTitleLength || !utf8.ValidString(s) {
		return "", Invalid("%s must be 1 to %d bytes", field, MaxTitleLength)
	}
	return s, nil
}

// checkFolder checks a folder id's form (nil: none).
// checkPlace checks what a recording and a series both name: a title, a
// pipeline (its id's form; the store checks it is the tenant's) and a
// folder (none when empty).
func checkPlace(title *string, pipelineID string, folderID *string) (string, *string, error) {
	t, err := checkTitle("title", title)
	if err != nil {
		return "", nil, err
	}
	if !ValidID(pipelineID) {
		return "", nil, Invalid("pipelineId %q is not a live pipeline of the tenant", pipelineID)
	}
	folder, err := checkFolder(folderID)
	if err != nil {
		return "", nil, err
	}
	return t, folder, nil
}

// checkStart checks a start given as field: required, and not in the past
// (RecordingClockSlack allowed).
func checkStart(field string, start, now time.Time) error {
	if start.IsZero() {
		return Invalid("%s is required", field)
	}
	if start.Before(now.Add(-RecordingClockSlack)) {
		return Invalid("%s %s is in the past", field, Stamp(start))
	}
	return nil
}

func checkFolder(id *string) (*string, error) {
	if id == nil || strings.TrimSpace(*id) == "" {
		return nil, nil
	}
	if !ValidID(*id) {
		return nil, Invalid("folderId %q is not a folder of the tenant", *id)
	}
	return id, nil
}

// EndOf settles end or durationSeconds (exactly one given) after start.
func EndOf(start time.Time, end *time.Time, duration *int) (time.Time, error) {
	switch {
	case end != nil && duration != nil:
		return time.Time{}, Invalid("end and durationSeconds: give one of them, not both")
	case end == nil && duration == nil:
		return time.Time{}, Invalid("end or durationSeconds is required")
	case duration != nil:
		if *duration <= 0 || *duration > MaxRecordingSeconds {
			return time.Time{}, Invalid("durationSeconds must be 1 to %d (24 hours)", MaxRecordingSeconds)
		}
		return start.Add(time.Duration(*duration) * time.Second), nil
	}
	if !end.After(start) {
		return time.Time{}, Invalid("end %s must be after start %s", Stamp(*end), Stamp(start))
	}
	if end.Sub(start) > MaxRecordingSeconds*time.Second {
		return time.Time{}, Invalid("durationSeconds: end %s is more than 24 hours after start %s", Stamp(*end), Stamp(start))
	}
	return *end, nil
}

// Plan checks the input against now; the store checks what needs the
// database (the pipeline, the folder, the form, overlaps).
func (in *ScheduleRecordingInput) Plan(now time.Time) (*RecordingPlan, error) {
	title, folder, err := checkPlace(in.Title, in.PipelineID, in.FolderID)
	if err != nil {
		return nil, err
	}
	if err := checkStart("start", in.Start, now); err != nil {
		return nil, err
	}
	end, err := EndOf(in.Start, in.End, in.DurationSeconds)
	if err != nil {
		return nil, err
	}
	return &RecordingPlan{Title: title, PipelineID: in.PipelineID, FolderID: folder, Metadata: in.Metadata,
		Start: in.Start.UTC(), End: end.UTC()}, nil
}

// UpdateScheduledRecordingInput changes the fields given
// (updateScheduledRecording): title and start while scheduled; end or
// durationSeconds also while recording.
type UpdateScheduledRecordingInput struct {
	Title           *string    `json:"title,omitempty"`
	Start           *time.Time `json:"start,omitempty"`
	End             *time.Time `json:"end,omitempty"`
	DurationSeconds *int       `json:"durationSeconds,omitempty"`
}

// RecordingChange is a checked change: the new title (nil: kept) and
// times.
type RecordingChange struct {
	Title      *string
	Start, End time.Time
}

// Change checks in against the recording as it is now.
func (in *UpdateScheduledRecordingInput) Change(cur *ScheduledRecording, now time.Time) (*RecordingChange, error) {
	out := &RecordingChange{Start: cur.StartsOn, End: cur.EndsOn}
	switch cur.State {
	case RecordingScheduled:
	case RecordingRecording:
		if in.Title != nil {
			return nil, Invalid("title cannot change while the recording records; change the item's metadata")
		}
		if in.Start != nil && !in.Start.Equal(cur.StartsOn) {
			return nil, Invalid("start cannot change while the recording records")
		}
	default:
		return nil, Invalid("the recording is %s: only a scheduled or recording one can change", cur.State)
	}
	if in.Title != nil {
		t, err := checkTitle("title", in.Title)
		if err != nil {
			return nil, err
		}
		out.Title = &t
	}
	if in.Start != nil && !in.Start.Equal(cur.StartsOn) {
		if cur.SeriesID != nil {
			return nil, Invalid("start: an occurrence of series %s keeps its start; remove the occurrence (removeSeriesOccurrence) and schedule a recording", *cur.SeriesID)
		}
		if err := checkStart("start", *in.Start, now); err != nil {
			return nil, err
		}
		out.Start = in.Start.UTC()
	}
	switch {
	case in.End != nil || in.DurationSeconds != nil:
		end, err := EndOf(out.Start, in.End, in.DurationSeconds)
		if err != nil {
			return nil, err
		}
		out.End = end.UTC()
	case !out.Start.Equal(cur.StartsOn):
		// A new start keeps the duration.
		out.End = out.Start.Add(cur.EndsOn.Sub(cur.StartsOn))
	}
	if cur.State == RecordingRecording && !out.End.After(now) {
		return nil, Invalid("end %s is not in the future: to stop a recording now, cancel it (cancelScheduledRecording)", Stamp(out.End))
	}
	if in.Title == nil && out.Start.Equal(cur.StartsOn) && out.End.Equal(cur.EndsOn) {
		return nil, Invalid("the input changes nothing: give title, start, end or durationSeconds")
	}
	return out, nil
}

// Stamp is a time as the messages show it (RFC 3339, UTC).
func Stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// CrashTitle is a crash recording's default title: the tenant's
// crashRecordingName and the start's local time.
func CrashTitle(name, timeZone string, start time.Time) string {
	loc, err := time.LoadLocation(timeZone)
	if err != nil {
		loc = time.UTC
	}
	if strings.TrimSpace(name) == "" {
		name = "Crash recording"
	}
	return strings.TrimSpace(name) + " " + start.In(loc).Format("2006-01-02 15:04:05")
}

// CrashDuration is a crash recording's length: given (checked), or the
// tenant's crashRecordingDuration, within MaxRecordingSeconds.
func CrashDuration(given *int, tenant int) (int, error) {
	if given != nil {
		if *given <= 0 || *given > MaxRecordingSeconds {
			return 0, Invalid("durationSeconds must be 1 to %d (24 hours)", MaxRecordingSeconds)
		}
		return *given, nil
	}
	if tenant <= 0 {
		return 3600, nil
	}
	return min(tenant, MaxRecordingSeconds), nil
}

// Period checks a listing's period (nil: from now, to DefaultScheduledPeriod
// after from).
func Period(from, to *time.Time, now time.Time) (time.Time, time.Time, error) {
	f := now
	if from != nil {
		f = *from
	}
	t := f.Add(DefaultScheduledPeriod)
	if to != nil {
		t = *to
	}
	if !t.After(f) {
		return f, t, Invalid("to %s must be after from %s", Stamp(t), Stamp(f))
	}
	if t.Sub(f) > MaxScheduledPeriod {
		return f, t, Invalid("to: the period from %s to %s is longer than 366 days", Stamp(f), Stamp(t))
	}
	return f.UTC(), t.UTC(), nil
}

// CheckPeriodParam checks a period query parameter (from, to): an RFC 3339
// time (the ISO 8601 profile), e.g. 2025-03-01T00:00:00Z.
func CheckPeriodParam(param string) func(string) error {
	return func(v string) error {
		if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
			return Invalid("%s %q is not a time like 2025-03-01T18:00:00Z (RFC 3339, ISO 8601)", param, v)
		}
		return nil
	}
}

// RecordingSeries is a series: the live_series row.
type RecordingSeries struct {
	TenantID   string  `db:"tenant_id" json:"-"`
	ID         string  `db:"id"`
	Title      string  `db:"title"`
	PipelineID string  `db:"pipeline_id"`
	FolderID   *string `db:"folder_id"`
	// Metadata is the MDF its items get ({formId, formData}; null: none).
	Metadata        JSON      `db:"metadata"`
	FirstStart      time.Time `db:"first_start"`
	TimeZone        string    `db:"time_zone"`
	DurationSeconds int       `db:"duration_seconds"`
	Repeat          string    `db:"repeat"`
	// Weekdays are the ISO weekdays of a days series (1 = Monday).
	Weekdays     []int  `db:"-"`
	WeekdaysJSON []byte `db:"days"`
	// Until: no occurrence starts after it; Count: at most that many
	// occurrences (exceptions count among them).
	Until          *time.Time  `db:"until_start"`
	Count          *int        `db:"occurrences"`
	Exceptions     []time.Time `db:"-"`
	ExceptionsJSON []byte      `db:"exceptions"`
	MadeUntil      time.Time   `db:"made_until"`
	CreatedByUser  string      `db:"created_by"`
	CreatedOn      time.Time   `db:"created_on"`
	ModifiedOn     time.Time   `db:"modified_on"`
	// Occurrences are those of the period it was read for (the store
	// fills them).
	Occurrences []*SeriesOccurrence `db:"-"`
}

// Decode fills the fields read as JSON.
func (s *RecordingSeries) Decode() *RecordingSeries {
	s.Weekdays, s.Exceptions = []int{}, []time.Time{}
	if len(s.WeekdaysJSON) > 0 {
		_ = json.Unmarshal(s.WeekdaysJSON, &s.Weekdays)
	}
	if len(s.ExceptionsJSON) > 0 {
		_ = json.Unmarshal(s.ExceptionsJSON, &s.Exceptions)
	}
	for i := range s.Exceptions {
		s.Exceptions[i] = s.Exceptions[i].UTC()
	}
	return s
}

func (s *RecordingSeries) CreatedByUserID() string { return s.CreatedByUser }

// Days are the weekdays' names (days series; empty otherwise).
func (s *RecordingSeries) Days() []string {
	out := make([]string, len(s.Weekdays))
	for i, d := range s.Weekdays {
		if d >= 1 && d <= 7 {
			out[i] = weekdayNames[d]
		}
	}
	return out
}

// SeriesOccurrence is one occurrence of a series; ItemID names its
// recording item once made.
type SeriesOccurrence struct {
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	ItemID *string   `json:"itemId"`
}

// RecordingSeriesInput creates a series (createRecordingSeries).
type RecordingSeriesInput struct {
	Title      *string            `json:"title,omitempty"`
	PipelineID string             `json:"pipelineId"`
	FolderID   *string            `json:"folderId,omitempty"`
	Metadata   *ItemMetadataInput `json:"metadata,omitempty"`
	// FirstStart is the first occurrence's start; the others are at its
	// wall-clock time in TimeZone.
	FirstStart      time.Time  `json:"firstStart"`
	TimeZone        *string    `json:"timeZone,omitempty"`
	DurationSeconds int        `json:"durationSeconds"`
	Repeat          string     `json:"repeat"`
	Days            []string   `json:"days,omitempty"`
	Until           *time.Time `json:"until,omitempty"`
	Count           *int       `json:"count,omitempty"`
}

// SeriesRule is a series' occurrence arithmetic.
type SeriesRule struct {
	FirstStart time.Time
	Loc        *time.Location
	Duration   time.Duration
	Repeat     string
	// Weekdays (days series) are ISO numbers, 1 = Monday.
	Weekdays   []int
	Until      *time.Time
	Count      *int
	Exceptions []time.Time
}

// Rule is the series' rule; an unknown time zone (removed from the
// database since) reads as UTC.
func (s *RecordingSeries) Rule() *SeriesRule {
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil {
		loc = time.UTC
	}
	return &SeriesRule{FirstStart: s.FirstStart, Loc: loc, Duration: time.Duration(s.DurationSeconds) * time.Second,
		Repeat: s.Repeat, Weekdays: s.Weekdays, Until: s.Until, Count: s.Count, Exceptions: s.Exceptions}
}

// isoWeekday is t's ISO weekday (1 = Monday … 7 = Sunday).
func isoWeekday(t time.Time) int {
	if d := int(t.Weekday()); d != 0 {
		return d
	}
	return 7
}

// Occurrences answers the starts in [from, to) of the rule's pattern
// (exceptions left out when skipExceptions), at most max of them, in
// order. Each is at the first start's wall-clock time on its day in the
// rule's time zone, so that a DST change keeps the local time (a time that
// does not exist that day, in a spring-forward gap, is read as Go's
// time.Date does: shifted by the gap).
func (r *SeriesRule) Occurrences(from, to time.Time, max int, skipExceptions bool) []time.Time {
	out := []time.Time{}
	first := r.FirstStart.In(r.Loc)
	y, m, d := first.Date()
	hh, mm, ss := first.Clock()
	ns := first.Nanosecond()
	n := 0 // the pattern's occurrences so far (count)
	for step := 0; step < maxSeriesSteps && len(out) < max; step++ {
		var day int
		switch r.Repeat {
		case SeriesDaily:
			day = step
		case SeriesWeekly:
			day = 7 * step
		case SeriesDays:
			day = step
			noon := time.Date(y, m, d+day, 12, 0, 0, 0, r.Loc)
			if !slices.Contains(r.Weekdays, isoWeekday(noon)) {
				continue
			}
		default:
			return out
		}
		start := time.Date(y, m, d+day, hh, mm, ss, ns, r.Loc).UTC()
		if start.Before(r.FirstStart) {
			continue
		}
		if r.Count != nil && n >= *r.Count {
			break
		}
		if r.Until != nil && start.After(*r.Until) {
			break
		}
		n++
		if !start.Before(to) {
			break
		}
		if start.Before(from) {
			continue
		}
		if skipExceptions && slices.ContainsFunc(r.Exceptions, start.Equal) {
			continue
		}
		out = append(out, start)
	}
	return out
}

// Has says whether start is an occurrence of the pattern (exceptions
// count as occurrences).
func (r *SeriesRule) Has(start time.Time) bool {
	got := r.Occurrences(start, start.Add(time.Nanosecond), 1, false)
	return len(got) == 1 && got[0].Equal(start)
}

// Excepted says whether start is one of the rule's exceptions.
func (r *SeriesRule) Excepted(start time.Time) bool {
	return slices.ContainsFunc(r.Exceptions, start.Equal)
}

// SeriesPlan is a checked series to create.
type SeriesPlan struct {
	Title      string
	PipelineID string
	FolderID   *string
	Metadata   *ItemMetadataInput
	Rule       SeriesRule
	TimeZone   string
}

// Plan checks the input against now; tz is the time zone when none is
// given (the tenant's tenantWideTimezone). The store checks what needs the
// database (the pipeline, the folder, the form, overlaps with recordings).
func (in *RecordingSeriesInput) Plan(now time.Time, tz string) (*SeriesPlan, error) {
	title, folder, err := checkPlace(in.Title, in.PipelineID, in.FolderID)
	if err != nil {
		return nil, err
	}
	if err := checkStart("firstStart", in.FirstStart, now); err != nil {
		return nil, err
	}
	if in.TimeZone != nil {
		tz = strings.TrimSpace(*in.TimeZone)
	}
	if tz == "" {
		tz = "UTC"
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || strings.EqualFold(tz, "local") {
		return nil, Invalid("timeZone %q is not an IANA time zone like Europe/Berlin", tz)
	}
	if in.DurationSeconds <= 0 || in.DurationSeconds > MaxRecordingSeconds {
		return nil, Invalid("durationSeconds must be 1 to %d (24 hours)", MaxRecordingSeconds)
	}
	r := SeriesRule{FirstStart: in.FirstStart.UTC(), Loc: loc, Duration: time.Duration(in.DurationSeconds) * time.Second,
		Repeat: in.Repeat, Weekdays: []int{}, Until: in.Until, Count: in.Count, Exceptions: []time.Time{}}
	switch in.Repeat {
	case SeriesDaily, SeriesWeekly:
		if len(in.Days) > 0 {
			return nil, Invalid("days are for repeat days only, not %s", in.Repeat)
		}
	case SeriesDays:
		if len(in.Days) == 0 {
			return nil, Invalid("days: repeat days needs at least one weekday (monday … sunday)")
		}
		for _, name := range in.Days {
			d := slices.Index(weekdayNames, strings.ToLower(strings.TrimSpace(name)))
			if d < 1 {
				return nil, Invalid("days: %q is not a weekday (monday, tuesday, wednesday, thursday, friday, saturday, sunday)", name)
			}
			if slices.Contains(r.Weekdays, d) {
				return nil, Invalid("days: %s is given twice", weekdayNames[d])
			}
			r.Weekdays = append(r.Weekdays, d)
		}
		slices.Sort(r.Weekdays)
	default:
		return nil, Invalid("repeat %q is not daily, weekly or days", in.Repeat)
	}
	if in.Count != nil && (*in.Count < 1 || *in.Count > MaxSeriesCount) {
		return nil, Invalid("count must be 1 to %d", MaxSeriesCount)
	}
	if in.Until != nil {
		u := in.Until.UTC()
		r.Until = &u
		if u.Before(r.FirstStart) {
			return nil, Invalid("until %s is before firstStart %s", Stamp(u), Stamp(r.FirstStart))
		}
	}
	// Its occurrences checked against each other: within a year of the
	// first (a pattern repeats; a DST change is in it).
	occ := r.Occurrences(r.FirstStart, r.FirstStart.Add(SeriesCheckSpan), MaxSeriesCount+1, false)
	if len(occ) == 0 {
		return nil, Invalid("until: the series has no occurrence (none of its days lies between firstStart and until)")
	}
	for i := 1; i < len(occ); i++ {
		if occ[i-1].Add(r.Duration).After(occ[i]) {
			return nil, Invalid("durationSeconds %d is longer than the time between occurrences %s and %s: they would overlap",
				in.DurationSeconds, Stamp(occ[i-1]), Stamp(occ[i]))
		}
	}
	return &SeriesPlan{Title: title, PipelineID: in.PipelineID, FolderID: folder, Metadata: in.Metadata, Rule: r,
		TimeZone: tz}, nil
}

// WeekdayNumbers are days' ISO numbers (the store's column).
func (p *SeriesPlan) WeekdayNumbers() []int { return p.Rule.Weekdays }

// OverlapError is the 400 for a time taken on the pipeline: by recording
// id (a series' occurrence not made yet when series).
func OverlapError(field string, start, end time.Time, otherID string, otherStart, otherEnd time.Time, series bool) *Error {
	what := "recording " + otherID
	if series {
		what = "an occurrence of series " + otherID
	}
	return Invalid("%s: %s to %s overlaps %s (%s to %s) on the same pipeline", field, Stamp(start), Stamp(end), what,
		Stamp(otherStart), Stamp(otherEnd))
}
