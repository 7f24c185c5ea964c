package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signing follows Standard Webhooks (standardwebhooks.com): the secret is
// "whsec_" and base64 of its key; the signed content is
// "<webhook-id>.<webhook-timestamp>.<body>"; webhook-signature holds
// "v1,<base64 HMAC-SHA256>" for each secret in force, space separated.

const secretPrefix = "whsec_"

// NewSecret makes a signing secret: 32 random bytes.
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// Sign is the webhook-signature value of body for each secret.
func Sign(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	var sigs []string
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
		if err != nil {
			return "", fmt.Errorf("webhooks: a secret is not base64: %w", err)
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(msgID + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
