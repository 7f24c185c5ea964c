package jwtauth_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loupe-mam/loupe/internal/auth/jwtauth"
)

func TestCheckURL(t *testing.T) {
	strict := jwtauth.NewVerifier(jwtauth.Options{Audience: audience})
	lax := jwtauth.NewVerifier(jwtauth.Options{Audience: audience, AllowPrivateNetworks: true})
	const (
		ok        = ""
		forbidden = "forbidden"
	)
	cases := []struct {
		url         string
		strict, lax string // ok, forbidden, or a substring of the error
	}{
		// The brief's list, as http (refused for the scheme alone) and https.
		{"http://127.0.0.1/jwks", "https", ok},
		{"http://169.254.169.254/latest/meta-data", "https", ok},
		{"http://10.0.0.1/jwks", "https", ok},
		{"http://[::1]/jwks", "https", ok},
		{"https://127.0.0.1/jwks", forbidden, ok},
		{"https://127.1.2.3:8443/jwks", forbidden, ok},
		{"https://169.254.169.254/jwks", forbidden, ok},
		{"https://10.0.0.1/jwks", forbidden, ok},
		{"https://172.16.5.4/jwks", forbidden, ok},
		{"https://172.31.255.255/jwks", forbidden, ok},
		{"https://192.168.1.1/jwks", forbidden, ok},
		{"https://100.64.0.1/jwks", forbidden, ok},
		{"https://0.0.0.0/jwks", forbidden, ok},
		{"https://224.0.0.1/jwks", forbidden, ok},
		{"https://255.255.255.255/jwks", forbidden, ok},
		{"https://[::1]/jwks", forbidden, ok},
		{"https://[::]/jwks", forbidden, ok},
		{"https://[fd00::1]/jwks", forbidden, ok},
		{"https://[fe80::1]/jwks", forbidden, ok},
		{"https://[fe80::1%25eth0]/jwks", forbidden, ok},
		{"https://[ff02::1]/jwks", forbidden, ok},
		{"https://[::ffff:127.0.0.1]/jwks", forbidden, ok},
		{"https://[::ffff:169.254.169.254]/jwks", forbidden, ok},
		{"https://[64:ff9b::7f00:1]/jwks", forbidden, ok}, // NAT64 of 127.0.0.1
		{"https://[2002:a00:1::]/jwks", forbidden, ok},    // 6to4 of 10.0.0.1
		{"https://localhost/jwks", forbidden, ok},
		{"https://localhost:8443/jwks", forbidden, ok},
		// Public addresses.
		{"https://8.8.8.8/jwks", ok, ok},
		{"https://172.32.0.1/jwks", ok, ok},
		{"https://[2606:4700:4700::1111]/.well-known/jwks.json", ok, ok},
		// Form.
		{"ftp://8.8.8.8/jwks", "https", "https"},
		{"file:///etc/passwd", "https", "https"},
		{"//8.8.8.8/jwks", "https", "https"},
		{"/jwks", "https", "https"},
		{"https:///jwks", "no host", "no host"},
		{"https://user:pw@8.8.8.8/jwks", "credentials", "credentials"},
		{"https://8.8.8.8:99999/jwks", "URL", "URL"},
		{"https://a b/jwks", "URL", "URL"},
	}
	check := func(t *testing.T, v *jwtauth.Verifier, url, want string) {
		t.Helper()
		err := v.CheckURL(context.Background(), url)
		switch want {
		case ok:
			if err != nil {
				t.Errorf("CheckURL(%q) = %v, want nil", url, err)
			}
		case forbidden:
			if !errors.Is(err, jwtauth.ErrForbiddenAddress) {
				t.Errorf("CheckURL(%q) = %v, want ErrForbiddenAddress", url, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("CheckURL(%q) = %v, want an error mentioning %q", url, err, want)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			check(t, strict, c.url, c.strict)
			check(t, lax, c.url, c.lax)
		})
	}
}

// The address policy holds at connect time, whatever CheckURL said or was
// never asked: a name that resolves to loopback when the set is fetched
// (DNS rebinding) is refused without a connection being made.
func TestDialerRefusesPrivateAddresses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	v := jwtauth.NewVerifier(jwtauth.Options{Audience: audience})
	tok := sign(hdr("RS256", "rsa-1"), claims(), rsaKey1())
	for _, host := range []string{"127.0.0.1", "localhost"} {
		url := "https://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/jwks"
		_, err := v.Verify(context.Background(), url, tok)
		if !errors.Is(err, jwtauth.ErrForbiddenAddress) || !errors.Is(err, jwtauth.ErrInvalidToken) {
			t.Fatalf("Verify with key set at %s: got %v, want ErrInvalidToken and ErrForbiddenAddress", url, err)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Fatalf("%d connections reached the loopback listener", n)
	}

	// The same listener is reachable when private networks are allowed,
	// so the refusal above was the policy, not the network.
	lax := jwtauth.NewVerifier(jwtauth.Options{Audience: audience, AllowPrivateNetworks: true})
	lax.Verify(context.Background(), "https://"+ln.Addr().String()+"/jwks", tok)
	if accepted.Load() == 0 {
		t.Fatal("the listener was not reachable with AllowPrivateNetworks")
	}
}

// Without AllowPrivateNetworks a key set is never fetched over plain http.
func TestVerifyRefusesHTTPKeySet(t *testing.T) {
	srv := newJWKSServer(t, rsaJWK("rsa-1", &rsaKey1().PublicKey))
	v := jwtauth.NewVerifier(jwtauth.Options{Audience: audience, Now: newClock().Now})
	_, err := v.Verify(context.Background(), srv.jwksURL(), sign(hdr("RS256", "rsa-1"), claims(), rsaKey1()))
	if !errors.Is(err, jwtauth.ErrInvalidToken) || !strings.Contains(err.Error(), "https") {
		t.Fatalf("got %v, want a refusal of http", err)
	}
	if srv.hits.Load() != 0 {
		t.Fatal("the http key set was fetched")
	}
}
