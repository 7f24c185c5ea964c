package loupe

import (
	"net/url"
	"regexp"
	"strings"
)

// Credentials in live source URLs (docs/live.md, "Credentials"): a
// source's URL may carry a password (userinfo), an SRT passphrase or
// another secret in its query, or an RTMP stream key (the path's last
// element). They never appear in answers or in measurement messages:
// RedactLiveURL replaces them with "***", and a URL read back and written
// again as it was answered keeps the stored one (KeepRedacted).

// liveSecretParams are query parameters whose values are secrets.
var liveSecretParams = regexp.MustCompile(`(?i)^(passphrase|password|passwd|pass|pwd|key|streamkey|stream_key|token|secret|auth|sig|signature|x-amz-signature|x-amz-credential)$`)

// Redacted stands for a secret.
const Redacted = "***"

// RedactLiveURL hides a source URL's secrets.
func RedactLiveURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return Redacted
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if liveSecretParams.MatchString(k) {
				q[k] = []string{Redacted}
			}
		}
		u.RawQuery = q.Encode()
	}
	if (u.Scheme == "rtmp" || u.Scheme == "rtmps") && strings.Count(strings.Trim(u.Path, "/"), "/") >= 1 {
		// rtmp://host/app/<stream key>
		u.Path = u.Path[:strings.LastIndex(u.Path, "/")+1] + Redacted
	}
	out := u.String()
	return strings.NewReplacer("%2A%2A%2A", Redacted, "%2a%2a%2a", Redacted).Replace(out)
}

// liveSecretsInText finds secrets in free text (ffprobe's messages).
var liveSecretsInText = regexp.MustCompile(`(?i)(passphrase|password|passwd|pass|pwd|key|streamkey|stream_key|token|secret|auth|sig|signature)=[^&\s;,'"]*|(//[^/@\s:]*):[^@\s/]*@`)

// RedactLiveText hides secrets in a message that may quote a URL.
func RedactLiveText(s string) string {
	return liveSecretsInText.ReplaceAllStringFunc(s, func(m string) string {
		if k, v, ok := strings.Cut(m, "="); ok && !strings.HasPrefix(m, "//") {
			// ffmpeg writes "<url>: <what went wrong>": the colon is its.
			if strings.HasSuffix(v, ":") {
				return k + "=" + Redacted + ":"
			}
			return k + "=" + Redacted
		}
		user, _, _ := strings.Cut(m, ":")
		return user + ":" + Redacted + "@"
	})
}

// KeepRedacted answers the URL to store for a source written as url when
// the stored one was cur: a URL sent back as it was answered (redacted)
// keeps the stored one.
func KeepRedacted(url, cur string) string {
	if cur != "" && url == RedactLiveURL(cur) && url != cur {
		return cur
	}
	return url
}
