package sources

import (
	"errors"

	"github.com/loupe-mam/loupe"
)

// A sealed secret is bound to its row: opened with another row's context
// (a copied column, a swapped id) it does not open.

// LocationSealContext binds a storage location's secret to its row.
func LocationSealContext(tenantID, id string) []byte {
	return []byte("storage_locations/" + tenantID + "/" + id)
}

// IngestSealContext binds an ingest configuration's secret to its row.
func IngestSealContext(tenantID, id string) []byte {
	return []byte("ingest_configs/" + tenantID + "/" + id)
}

// GatewaySealContext binds a gateway's secret to its row.
func GatewaySealContext(tenantID, id string) []byte {
	return []byte("gateway_configs/" + tenantID + "/" + id)
}

// errNoCredentialsKey is why a secret cannot be kept.
var errNoCredentialsKey = loupe.Invalid("this server has no credentials key (LOUPE_CREDENTIALS_KEY), so it cannot keep a secret key")

// Seal checks a secret key given with accessType key-user and seals it for
// ctxt. EINVALID when it is missing or malformed, or the server has no
// credentials key.
func (s *Sources) Seal(secret *string, ctxt []byte) ([]byte, error) {
	if secret == nil {
		return nil, loupe.Invalid("secretKey is required with accessType key-user")
	}
	if err := loupe.ValidateSecretKey(*secret); err != nil {
		return nil, err
	}
	if s.Credentials == nil {
		return nil, errNoCredentialsKey
	}
	return s.Credentials.Seal([]byte(*secret), ctxt), nil
}

// SealLocationSecret checks secret and seals it onto storage location l.
func (s *Sources) SealLocationSecret(l *loupe.StorageLocation, secret string) error {
	sealed, err := s.Seal(&secret, LocationSealContext(l.TenantID, l.ID))
	if err != nil {
		return err
	}
	l.SecretSealed = sealed
	return nil
}

// open opens a sealed secret; its errors say why without the secret.
func (s *Sources) open(sealed, ctxt []byte) (string, error) {
	if sealed == nil {
		return "", errors.New("no secret key is saved")
	}
	if s.Credentials == nil {
		return "", errors.New("this server has no credentials key (LOUPE_CREDENTIALS_KEY) to open the saved secret key")
	}
	secret, err := s.Credentials.Open(sealed, ctxt)
	if err != nil {
		return "", errors.New("the saved secret key does not open with this server's credentials key")
	}
	return string(secret), nil
}
