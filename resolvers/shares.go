package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/graph/model"
	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/internal/shares"
	"github.com/loupe-mam/loupe/store"
)

// Shares as their creators make and list them (docs/shares.md); the
// outsider's side is internal/shares.

func (r *mutationResolver) createShare(ctx context.Context, input loupe.ShareInput) (*model.CreateShareResult, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	limits, err := r.Store.ShareLimits(ctx, p.TenantID)
	if err != nil {
		return nil, err
	}
	req, err := input.Check(limits, p.IsAdmin, time.Now())
	if err != nil {
		return nil, err
	}
	hash := ""
	if req.Password != "" {
		hash = shares.HashPassword(req.Password)
	}
	var links []*model.ShareLink
	var tokens []store.NewShareToken
	add := func(recipient *string) {
		t := shares.NewToken()
		tokens = append(tokens, store.NewShareToken{Hash: shares.Hash(t), Recipient: recipient})
		links = append(links, &model.ShareLink{Recipient: recipient, Token: t,
			URL: strings.TrimSuffix(r.ShareBaseURL, "/") + shares.PathPrefix + "/" + t})
	}
	if req.PublicLink {
		add(nil)
	}
	for _, rc := range req.Recipients {
		add(&rc)
	}
	sh, err := r.Store.CreateShare(ctx, p, req, hash, tokens)
	if err != nil {
		return nil, err
	}
	return &model.CreateShareResult{Share: sh, Links: links}, nil
}

func (r *queryResolver) sharesPage(ctx context.Context, first *int, after *string) (*model.SharePage, error) {
	p, err := auth.Require(ctx)
	if err != nil {
		return nil, err
	}
	size, cursor, err := timePage(first, after)
	if err != nil {
		return nil, err
	}
	list, more, err := r.Store.Shares(ctx, p, cursor, size)
	if err != nil {
		return nil, err
	}
	page := &model.SharePage{Shares: list}
	if more {
		last := list[len(list)-1]
		page.NextToken = store.TimeCursor{CreatedOn: last.CreatedOn, ID: last.ID}.String()
	}
	return page, nil
}
