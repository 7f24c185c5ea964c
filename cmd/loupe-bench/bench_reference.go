package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/loupe-mam/loupe"
	"github.com/loupe-mam/loupe/internal/bench/benchseed"
	"github.com/loupe-mam/loupe/store"
)

// referenceName is the yardstick row of the get-item scenario.
const referenceName = "hand-written chi + sqlx GET item (reference)"

// startReference serves issue 5's yardstick for get-item: what a
// hand-written chi + sqlx handler reaches here. It reads the same item
// record by id with the store's own prepared statement (admin, no
// visibility subqueries — as the bench key is) and writes it with
// encoding/json: no GraphQL, no middleware, a key compared as a string. It
// runs in the bench process, beside the load generator.
func startReference(ctx context.Context, dbURL string, s *benchseed.Seeded) (string, func(), error) {
	db, err := store.Open(store.DSN(dbURL), 8)
	if err != nil {
		return "", nil, err
	}
	st := store.New(db)
	p := &loupe.Principal{TenantID: s.TenantID, UserID: s.UserID, IsAdmin: true}
	want := "Bearer " + s.APIKey
	r := chi.NewRouter()
	r.Get("/api/v1/items/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			http.Error(w, `{"error":{"statusCode":401}}`, http.StatusUnauthorized)
			return
		}
		it, err := st.Item(r.Context(), p, chi.URLParam(r, "id"))
		if err != nil {
			http.Error(w, `{"error":{"statusCode":404}}`, http.StatusNotFound)
			return
		}
		b, err := json.Marshal(it)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b) //nolint:errcheck // the client went away
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return "", nil, err
	}
	srv := &http.Server{Handler: r, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
	stop := func() {
		srv.Close() //nolint:errcheck
		db.Close()
	}
	return "http://127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port), stop, nil
}
