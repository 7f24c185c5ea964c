package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Item is what the demo reads of a REST item.
type Item struct {
	ID               string    `json:"id"`
	Title            string    `json:"title"`
	ItemState        string    `json:"itemState"`
	TranscodingState string    `json:"transcodingState"`
	ProgressInfo     *Progress `json:"progressInfo"`
	Proxy            string    `json:"proxy"`
	Thumbnail        string    `json:"thumbnail"`
	ThumbnailStrip   string    `json:"thumbnailStrip"`
}

// Progress is the item's progressInfo (docs/processing.md).
type Progress struct {
	Step       string   `json:"step"`
	Percent    *float64 `json:"percent"`
	ETASeconds float64  `json:"etaSeconds"`
	Error      string   `json:"error"`
	// ProxySegments is what the run's video proxy was made of, once done
	// (nil: one run): Reused of Count made by an earlier attempt.
	ProxySegments *struct {
		Count  int `json:"count"`
		Reused int `json:"reused"`
	} `json:"proxySegments"`
}

// Done tells whether processing has ended, either way (skipped: the file
// is not media).
func (it *Item) Done() bool {
	switch it.TranscodingState {
	case "complete", "failed", "skipped":
		return true
	}
	return false
}

// Item reads an item.
func (c *Client) Item(ctx context.Context, id string) (*Item, error) {
	var it Item
	if err := c.Do(ctx, http.MethodGet, "/api/v1/items/"+id, nil, &it); err != nil {
		return nil, err
	}
	return &it, nil
}

// WaitOptions say how long and how often Wait polls.
type WaitOptions struct {
	// Timeout is how long the processing may take in all (default 10 min).
	Timeout time.Duration
	// Interval is the time between polls (default, and least, 1 s: the
	// server writes progress at most once a second).
	Interval time.Duration
}

// Wait polls the items until each is complete or failed, writing a line to
// out whenever one's state, step or percent changed. It answers the items
// as last read, and an error naming those that failed or did not finish.
func (c *Client) Wait(ctx context.Context, items []Uploaded, opt WaitOptions, out io.Writer) ([]*Item, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Minute
	}
	if opt.Interval < time.Second {
		opt.Interval = time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	last := make([]*Item, len(items))
	shown := make([]string, len(items))
	tick := time.NewTicker(opt.Interval)
	defer tick.Stop()
	for {
		pending := 0
		for i, u := range items {
			if last[i] != nil && last[i].Done() {
				continue
			}
			it, err := c.Item(ctx, u.ID)
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				return last, fmt.Errorf("read item %s: %w", u.ID, err)
			}
			last[i] = it
			if line := fmt.Sprintf("%-10s %s", it.TranscodingState, detail(it)); line != shown[i] {
				fmt.Fprintf(out, "%s  %s\n", u.ID, strings.TrimSpace(line))
				shown[i] = line
			}
			if !it.Done() {
				pending++
			}
		}
		if pending == 0 && ctx.Err() == nil {
			return last, failures(items, last)
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return last, fmt.Errorf("processing did not finish within %v: %w", opt.Timeout, unfinished(items, last))
			}
			return last, ctx.Err()
		case <-tick.C:
		}
	}
}

// detail is what progressInfo says beside the state: the step and its
// percent while running, why on failure.
func detail(it *Item) string {
	p := it.ProgressInfo
	if p == nil {
		return ""
	}
	switch {
	case it.TranscodingState == "failed":
		return p.Error
	case it.Done():
		return ""
	case p.Percent != nil:
		return fmt.Sprintf("%s %.0f%%", p.Step, *p.Percent)
	}
	return p.Step
}

func failures(items []Uploaded, last []*Item) error {
	var bad []string
	for i, it := range last {
		if it.TranscodingState == "failed" {
			msg := items[i].File.Title
			if it.ProgressInfo != nil && it.ProgressInfo.Error != "" {
				msg += ": " + it.ProgressInfo.Error
			}
			bad = append(bad, msg)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d of %d items failed processing: %s", len(bad), len(items), strings.Join(bad, "; "))
	}
	return nil
}

func unfinished(items []Uploaded, last []*Item) error {
	var left []string
	for i, it := range last {
		if it == nil || !it.Done() {
			state := "not read"
			if it != nil {
				state = it.TranscodingState
			}
			left = append(left, fmt.Sprintf("%s (%s) %s", items[i].ID, items[i].File.Title, state))
		}
	}
	return fmt.Errorf("still processing: %s", strings.Join(left, ", "))
}
