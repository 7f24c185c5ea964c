package store

import (
	"time"

	"github.com/lib/pq"
	"github.com/loupe-mam/loupe"
)

// This file holds the types of the tenant's people-facing configuration:
// persons, system bookmarks and their folders, user settings.

// Person is an item of itemType person (spec 2.17).
type Person struct {
	TenantID     string         `db:"tenant_id"`
	ID           string         `db:"id"`
	CreatedOn    time.Time      `db:"created_on"`
	ItemType     string         `db:"item_type"`
	Name         string         `db:"name"`
	Description  string         `db:"description"`
	ImageIDsList pq.StringArray `db:"image_ids"`
}

// NodeID implements Node.
func (p *Person) NodeID() string { return p.ID }

// ImageIds are the ids of image items showing the person.
func (p *Person) ImageIds() []string {
	if p.ImageIDsList == nil {
		return []string{}
	}
	return p.ImageIDsList
}

// Bookmark is a system bookmark (spec 2.11).
type Bookmark struct {
	TenantID         string         `db:"tenant_id"`
	ID               string         `db:"id"`
	Title            string         `db:"title"`
	Path             string         `db:"path"`
	Icon             string         `db:"icon"`
	IsFilterBookmark *bool          `db:"is_filter_bookmark"`
	ParentFolder     *string        `db:"parent_folder"`
	VisibleToGroups  pq.StringArray `db:"visible_to_groups"`
	SortKey          *string        `db:"sort_key"`
}

// BookmarkFolder is a folder of system bookmarks.
type BookmarkFolder struct {
	TenantID     string  `db:"tenant_id"`
	ID           string  `db:"id"`
	Title        string  `db:"title"`
	ParentFolder *string `db:"parent_folder"`
	SortKey      *string `db:"sort_key"`
}

// UserSettings are one user's settings (spec 2.18).
type UserSettings struct {
	Bookmarks               loupe.JSON `json:"bookmarks"`
	BookmarksFolders        loupe.JSON `json:"bookmarksFolders"`
	DefaultFilters          loupe.JSON `json:"defaultFilters"`
	DismissedNotifications  loupe.JSON `json:"dismissedNotifications"`
	LastSeenChangelogID     string     `json:"lastSeenChangelogId"`
	ShowRenameSubclipDialog bool       `json:"showRenameSubclipDialog"`
	ShowSequenceParts       bool       `json:"showSequenceParts"`
	Language                string     `json:"language"`
	Theme                   string     `json:"theme"`
	SubtitlePreference      string     `json:"subtitlePreference"`
	ShowPopups              bool       `json:"showPopups"`
	PinnedItems             loupe.JSON `json:"pinnedItems"`
	WorkFolderID            string     `json:"workFolderId"`
}
