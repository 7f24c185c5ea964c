package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loupe-mam/loupe/internal/auth"
	"github.com/loupe-mam/loupe/store"
)

// cmdTenantCreate makes a tenant with its admin and prints
// {"tenantId","userId","apiKey"} as the last line of stdout.
func cmdTenantCreate(ctx context.Context, c config, args []string) error {
	fs := flag.NewFlagSet("tenant create", flag.ContinueOnError)
	name := fs.String("name", "", "tenant name (unique)")
	email := fs.String("admin-email", "", "email of the tenant's first admin")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" || *email == "" {
		return errors.New("tenant create needs --name and --admin-email")
	}
	db, _, closeDB, err := openDatabase(ctx, c)
	if err != nil {
		return err
	}
	defer closeDB()
	out, key, err := createTenant(ctx, newStore(c, db), *name, *email)
	if err != nil {
		return err
	}
	return printJSON(os.Stdout, map[string]string{"tenantId": out.TenantID, "userId": out.UserID, "apiKey": key})
}

// createTenant makes a tenant and returns the admin's key, shown once.
func createTenant(ctx context.Context, st *store.Store, name, email string) (*store.TenantCreated, string, error) {
	k, err := auth.NewKey()
	if err != nil {
		return nil, "", err
	}
	out, err := st.CreateTenant(ctx, name, email, store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: "admin"})
	if err != nil {
		return nil, "", err
	}
	return out, k.Header, nil
}

// cmdUserCreate makes a user and prints {"userId","apiKey"} as the last line.
func cmdUserCreate(ctx context.Context, c config, args []string) error {
	fs := flag.NewFlagSet("user create", flag.ContinueOnError)
	tenant := fs.String("tenant-id", "", "tenant of the user")
	email := fs.String("email", "", "email of the user")
	groups := fs.String("groups", "", "comma-separated group names")
	admin := fs.Bool("admin", false, "make the user a tenant admin")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tenant == "" || *email == "" {
		return errors.New("user create needs --tenant-id and --email")
	}
	var names []string
	for _, g := range strings.Split(*groups, ",") {
		if g = strings.TrimSpace(g); g != "" {
			names = append(names, g)
		}
	}
	var userID string
	k, err := storeNewKey(ctx, c, "cli", func(st *store.Store, key store.NewKey) (err error) {
		userID, err = st.CreateUser(ctx, *tenant, *email, names, *admin, key)
		return err
	})
	if err != nil {
		return err
	}
	return printJSON(os.Stdout, map[string]string{"userId": userID, "apiKey": k.Header})
}

// storeNewKey opens the database, generates a key and lets keep store it
// (with what it belongs to); the caller prints the key, shown once.
func storeNewKey(ctx context.Context, c config, label string, keep func(*store.Store, store.NewKey) error) (*auth.Key, error) {
	db, _, closeDB, err := openDatabase(ctx, c)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	k, err := auth.NewKey()
	if err != nil {
		return nil, err
	}
	if err := keep(newStore(c, db), store.NewKey{ID: k.ID, SecretHash: k.Hash, Label: label}); err != nil {
		return nil, err
	}
	return k, nil
}

// cmdSystemKeyCreate makes a key of the system scope and prints
// {"keyId","apiKey"} as the last line: it opens the system endpoints (tenant
// ids, storage managers, metering of several tenants) and no tenant's data.
func cmdSystemKeyCreate(ctx context.Context, c config, args []string) error {
	fs := flag.NewFlagSet("system-key create", flag.ContinueOnError)
	label := fs.String("label", "system", "what the key is for")
	if err := fs.Parse(args); err != nil {
		return err
	}
	k, err := storeNewKey(ctx, c, *label, func(st *store.Store, key store.NewKey) error {
		return st.CreateSystemKey(ctx, key)
	})
	if err != nil {
		return err
	}
	return printJSON(os.Stdout, map[string]string{"keyId": k.ID, "apiKey": k.Header})
}

func printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
