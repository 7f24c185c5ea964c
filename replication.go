package loupe

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Replication (spec 4.5, 2.28 {sources}; docs/replication.md): a tenant's
// replication sources say which items' files (originals, generated media)
// are copied or moved from one place to another — for a folder at any
// depth or the whole tenant, when an original arrives, on a schedule or by
// hand. Each file copied is a transfer: resumable, verified by SHA-256 on
// arrival, visible with its progress.

// MsgMissingReplicationBody is the spec's 400 to a replication write
// without a body (section 7).
const MsgMissingReplicationBody = "Missing Put Replication body JSON"

// Scope types, media and modes of a replication source.
const (
	ReplicationScopeTenant = "tenant"
	ReplicationScopeFolder = "folder"

	ReplicationOriginal  = "original"
	ReplicationGenerated = "generated"

	ReplicationCopy = "copy"
	ReplicationMove = "move"
)

// Limits of replication sources.
const (
	MaxReplicationSources = 100
	MaxReplicationName    = 200
	// MaxReplicationInterval is a year, in minutes.
	MaxReplicationInterval = 525600
	// MinReplicationBandwidth is the smallest maxBytesPerSecond other than
	// 0 (no limit): 64 KiB/s.
	MinReplicationBandwidth = 64 << 10
)

// ReplicationScope says which items a source replicates: every item of the
// tenant, or the items of a folder at any depth.
type ReplicationScope struct {
	Type     string  `json:"type"`
	FolderID *string `json:"folderId"`
}

// ReplicationTriggers say when a source runs besides by hand: when an
// item's original (or, for generated media, its processing) arrives, and
// every IntervalMinutes (nil: no schedule).
type ReplicationTriggers struct {
	OnIngest        bool `json:"onIngest"`
	IntervalMinutes *int `json:"intervalMinutes"`
}

// ReplicationSource is one replication rule of a tenant.
type ReplicationSource struct {
	TenantID string           `json:"-"`
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	Scope    ReplicationScope `json:"scope"`
	// FromLocationID is the storage location files are taken from; nil:
	// Loupe's own file store.
	FromLocationID *string `json:"fromLocationId"`
	// ToLocationID is the storage location files go to.
	ToLocationID string              `json:"toLocationId"`
	Media        []string            `json:"media"`
	Mode         string              `json:"mode"`
	Triggers     ReplicationTriggers `json:"triggers"`
	// MaxBytesPerSecond caps each of the source's transfers (0: no cap).
	MaxBytesPerSecond int64      `json:"maxBytesPerSecond"`
	Enabled           bool       `json:"enabled"`
	CreatedOn         time.Time  `json:"createdOn"`
	ModifiedOn        time.Time  `json:"modifiedOn"`
	LastRunOn         *time.Time `json:"lastRunOn"`
	RunRequestedOn    *time.Time `json:"runRequestedOn"`
	NextRunOn         *time.Time `json:"nextRunOn"`
}

// Copies reports whether the source replicates media m.
func (s *ReplicationSource) Copies(m string) bool { return slices.Contains(s.Media, m) }

// ReplicationScopeInput is a scope as a client sends it.
type ReplicationScopeInput struct {
	Type     *string `json:"type"`
	FolderID *string `json:"folderId"`
}

// ReplicationTriggersInput is a source's triggers as a client sends them.
type ReplicationTriggersInput struct {
	OnIngest        *bool `json:"onIngest"`
	IntervalMinutes *int  `json:"intervalMinutes"`
}

// ReplicationSourceInput is one source of a PUT: with the id of an existing
// source it replaces that one (keeping its id, createdOn and lastRunOn),
// without one it is new. The read-only keys a GET answers may be sent back;
// they are ignored.
type ReplicationSourceInput struct {
	ID                *string                   `json:"id"`
	Name              *string                   `json:"name"`
	Scope             *ReplicationScopeInput    `json:"scope"`
	FromLocationID    *string                   `json:"fromLocationId"`
	ToLocationID      *string                   `json:"toLocationId"`
	Media             []string                  `json:"media"`
	Mode              *string                   `json:"mode"`
	Triggers          *ReplicationTriggersInput `json:"triggers"`
	MaxBytesPerSecond *int64                    `json:"maxBytesPerSecond"`
	Enabled           *bool                     `json:"enabled"`
	// Read-only keys, ignored.
	CreatedOn      *time.Time      `json:"createdOn"`
	ModifiedOn     *time.Time      `json:"modifiedOn"`
	LastRunOn      *time.Time      `json:"lastRunOn"`
	RunRequestedOn *time.Time      `json:"runRequestedOn"`
	NextRunOn      *time.Time      `json:"nextRunOn"`
	TransferCounts *TransferCounts `json:"transferCounts"`
}

// PutReplicationInput is the body of PUT /prime/api/v1/replication: the
// tenant's whole set of sources (those not given are deleted), and the
// sources to run now (by id; after the set is written).
type PutReplicationInput struct {
	Sources []*ReplicationSourceInput `json:"sources"`
	Run     []string                  `json:"run"`
}

// Check validates the input's shape, each problem naming its field
// (sources[2].toLocationId …): whether ids, folders and locations exist is
// the store's to check. It answers the sources as they will be written
// (ID "" for a new one; the caller keeps the times).
func (in *PutReplicationInput) Check() ([]*ReplicationSource, error) {
	if in.Sources == nil && in.Run == nil {
		return nil, Invalid("the body needs sources (the tenant's replication sources) or run (ids of sources to run now)")
	}
	if len(in.Sources) > MaxReplicationSources {
		return nil, Invalid("sources has %d entries, at most %d are allowed", len(in.Sources), MaxReplicationSources)
	}
	out := make([]*ReplicationSource, 0, len(in.Sources))
	ids := map[string]int{}
	for i, s := range in.Sources {
		src, err := s.check(i)
		if err != nil {
			return nil, err
		}
		if src.ID != "" {
			if j, ok := ids[src.ID]; ok {
				return nil, Invalid("sources[%d].id %s is also sources[%d].id", i, src.ID, j)
			}
			ids[src.ID] = i
		}
		out = append(out, src)
	}
	for i, id := range in.Run {
		if !ValidID(id) {
			return nil, Invalid("run[%d] %q is not a replication source id", i, id)
		}
	}
	return out, nil
}

func (s *ReplicationSourceInput) check(i int) (*ReplicationSource, error) {
	f := func(name string) string { return "sources[" + strconv.Itoa(i) + "]." + name }
	if s == nil {
		return nil, Invalid("sources[%d] must be an object", i)
	}
	out := &ReplicationSource{Enabled: true, Mode: ReplicationCopy}
	if s.ID != nil {
		if !ValidID(*s.ID) {
			return nil, Invalid("%s %q is not a replication source id", f("id"), *s.ID)
		}
		out.ID = strings.ToLower(*s.ID)
	}
	if s.Name == nil {
		return nil, Invalid("%s is required", f("name"))
	}
	out.Name = strings.TrimSpace(*s.Name)
	if out.Name == "" || utf8.RuneCountInString(out.Name) > MaxReplicationName || !textOK(out.Name) {
		return nil, Invalid("%s must be 1 to %d characters", f("name"), MaxReplicationName)
	}
	if s.Scope == nil || s.Scope.Type == nil {
		return nil, Invalid("%s is required: tenant or folder", f("scope.type"))
	}
	switch out.Scope.Type = *s.Scope.Type; out.Scope.Type {
	case ReplicationScopeTenant:
		if s.Scope.FolderID != nil {
			return nil, Invalid("%s must be null when scope.type is tenant", f("scope.folderId"))
		}
	case ReplicationScopeFolder:
		if s.Scope.FolderID == nil || !ValidID(*s.Scope.FolderID) {
			return nil, Invalid("%s must be a folder id when scope.type is folder", f("scope.folderId"))
		}
		id := strings.ToLower(*s.Scope.FolderID)
		out.Scope.FolderID = &id
	default:
		return nil, Invalid("%s %q is not one of tenant, folder", f("scope.type"), out.Scope.Type)
	}
	if s.FromLocationID != nil {
		if !ValidID(*s.FromLocationID) {
			return nil, Invalid("%s %q is not a storage location id (null: Loupe's own file store)", f("fromLocationId"), *s.FromLocationID)
		}
		id := strings.ToLower(*s.FromLocationID)
		out.FromLocationID = &id
	}
	if s.ToLocationID == nil {
		return nil, Invalid("%s is required: the storage location files go to", f("toLocationId"))
	}
	if !ValidID(*s.ToLocationID) {
		return nil, Invalid("%s %q is not a storage location id", f("toLocationId"), *s.ToLocationID)
	}
	out.ToLocationID = strings.ToLower(*s.ToLocationID)
	if out.FromLocationID != nil && *out.FromLocationID == out.ToLocationID {
		return nil, Invalid("%s must differ from fromLocationId", f("toLocationId"))
	}
	if len(s.Media) == 0 {
		return nil, Invalid("%s must name original, generated or both", f("media"))
	}
	for j, m := range s.Media {
		if m != ReplicationOriginal && m != ReplicationGenerated {
			return nil, Invalid("%s[%d] %q is not one of original, generated", f("media"), j, m)
		}
		if slices.Contains(out.Media, m) {
			return nil, Invalid("%s[%d] %q is given twice", f("media"), j, m)
		}
		out.Media = append(out.Media, m)
	}
	slices.Sort(out.Media) // generated, original
	if out.Copies(ReplicationGenerated) && out.FromLocationID != nil {
		return nil, Invalid("%s must be null when media has generated: generated media is in Loupe's own file store", f("fromLocationId"))
	}
	if s.Mode != nil {
		out.Mode = *s.Mode
	}
	switch out.Mode {
	case ReplicationCopy:
	case ReplicationMove:
		if out.Copies(ReplicationGenerated) {
			return nil, Invalid("%s move applies to originals only: media must be [original] (Loupe serves generated media from its own store; copy it with a copy source)", f("mode"))
		}
	default:
		return nil, Invalid("%s %q is not one of copy, move", f("mode"), out.Mode)
	}
	if t := s.Triggers; t != nil {
		if t.OnIngest != nil {
			out.Triggers.OnIngest = *t.OnIngest
		}
		if m := t.IntervalMinutes; m != nil {
			if *m < 1 || *m > MaxReplicationInterval {
				return nil, Invalid("%s %d must be 1 to %d minutes, or null for no schedule", f("triggers.intervalMinutes"), *m, MaxReplicationInterval)
			}
			n := *m
			out.Triggers.IntervalMinutes = &n
		}
	}
	if b := s.MaxBytesPerSecond; b != nil {
		if *b != 0 && (*b < MinReplicationBandwidth || *b > 1<<40) {
			return nil, Invalid("%s %d must be 0 (no limit) or %d to %d", f("maxBytesPerSecond"), *b, MinReplicationBandwidth, int64(1)<<40)
		}
		out.MaxBytesPerSecond = *b
	}
	if s.Enabled != nil {
		out.Enabled = *s.Enabled
	}
	return out, nil
}

// TransferState is where a transfer is.
type TransferState string

// The states of a transfer.
const (
	TransferQueued    TransferState = "queued"
	TransferCopying   TransferState = "copying"
	TransferVerifying TransferState = "verifying"
	TransferComplete  TransferState = "complete"
	TransferFailed    TransferState = "failed"
)

// TransferStates lists them in order.
var TransferStates = []TransferState{TransferQueued, TransferCopying, TransferVerifying, TransferComplete, TransferFailed}

// Active reports whether a transfer in state s has not ended.
func (s TransferState) Active() bool {
	return s == TransferQueued || s == TransferCopying || s == TransferVerifying
}

// MarshalGQL writes the state as its enum value (gqlgen).
func (s TransferState) MarshalGQL(w io.Writer) { MarshalEnum(w, string(s)) }

// UnmarshalGQL reads the enum value (gqlgen).
func (s *TransferState) UnmarshalGQL(v any) error {
	str, _ := v.(string)
	if slices.Contains(TransferStates, TransferState(str)) {
		*s = TransferState(str)
		return nil
	}
	return Invalid("state %q is not one of queued, copying, verifying, complete, failed", str)
}

// TransferEnd is where a transfer reads or writes: a storage location (nil:
// Loupe's own file store) and the key there.
type TransferEnd struct {
	LocationID *string `json:"locationId"`
	Key        string  `json:"key"`
}

// TransferError is one failed attempt of a transfer.
type TransferError struct {
	At      time.Time `json:"at"`
	Attempt int       `json:"attempt"`
	Message string    `json:"message"`
}

// TransferCounts counts a source's transfers by state.
type TransferCounts struct {
	Queued    int `json:"queued"`
	Copying   int `json:"copying"`
	Verifying int `json:"verifying"`
	Complete  int `json:"complete"`
	Failed    int `json:"failed"`
}

// Add counts n transfers in state s.
func (c *TransferCounts) Add(s TransferState, n int) {
	switch s {
	case TransferQueued:
		c.Queued += n
	case TransferCopying:
		c.Copying += n
	case TransferVerifying:
		c.Verifying += n
	case TransferComplete:
		c.Complete += n
	case TransferFailed:
		c.Failed += n
	}
}
