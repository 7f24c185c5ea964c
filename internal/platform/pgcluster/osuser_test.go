package pgcluster

import (
	"os"
	"testing"
)

func TestCanSearch(t *testing.T) {
	const pg, pgGroup, other = 101, 104, 0
	gids := []int{pgGroup, 103}
	for _, tc := range []struct {
		name             string
		mode             os.FileMode
		fileUID, fileGID int
		want             bool
	}{
		{"world-searchable", 0o755, other, other, true},
		{"root-only home", 0o700, other, other, false},
		{"owned by postgres", 0o700, pg, other, true},
		{"owner bit decides for owner", 0o077, pg, pgGroup, false},
		{"primary group", 0o750, other, pgGroup, true},
		{"supplementary group", 0o750, other, 103, true},
		{"group bit decides for group", 0o705, other, pgGroup, false},
		{"sticky /tmp", os.ModeSticky | 0o777, other, other, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := canSearch(tc.mode, tc.fileUID, tc.fileGID, pg, gids); got != tc.want {
				t.Fatalf("canSearch(%v) = %v, want %v", tc.mode, got, tc.want)
			}
		})
	}
}
