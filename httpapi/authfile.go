package httpapi

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// An auth file (`xflex serve --auth-file PATH`) holds one token per line:
//
//	TENANT SCOPES SHA256HEX   # comment
//
// TENANT matches validTenant, SCOPES is a comma list of solve, jobs and
// admin, SHA256HEX is the SHA-256 of the token in hex (64 digits). `#`
// starts a comment; blank lines are ignored. Only the hashes are stored,
// so the file reveals no token; `xflex token new` makes a token and its
// line. A tenant may have several lines (several tokens, e.g. while one is
// being rotated out); a hash may appear only once.

// validTenant is what a tenant name may be: short and plain, so it is safe
// to log, to store and to use as a label.
var validTenant = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// CheckTenant refuses a tenant name validTenant does not match, saying
// which names are allowed.
func CheckTenant(name string) error {
	if validTenant.MatchString(name) {
		return nil
	}
	return fmt.Errorf("tenant name %q is not allowed: a tenant name is 1 to 64 characters from A-Z a-z 0-9 . _ - "+
		"(no spaces or other characters), e.g. team-a or acme.prod", name)
}

// TokenPrefix starts every token `xflex token new` makes, so a leaked one
// is easy to recognise (secret scanners, logs).
const TokenPrefix = "xf_"

// tokenBytes is the entropy of a token: 256 bits, beyond any guessing.
const tokenBytes = 32

// tokenEntry is one line of an auth file.
type tokenEntry struct {
	hash      [sha256.Size]byte
	principal Principal
}

// tokenStore is a parsed auth file; it is never modified once parsed (a
// reload parses a new one), so requests share it without locks.
type tokenStore struct {
	entries []tokenEntry
}

// NewToken returns a fresh random token: TokenPrefix and 32 bytes from
// crypto/rand in unpadded base64url.
func NewToken() (string, error) {
	var b [tokenBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// HashToken returns the hex SHA-256 of a token, as an auth file stores it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// AuthLine returns the auth-file line granting token to tenant with
// scopes. It checks the tenant and the scopes as the file's parser does.
func AuthLine(tenant string, scopes []Scope, token string) (string, error) {
	if err := CheckTenant(tenant); err != nil {
		return "", err // before the line is built: a space would split it into other fields
	}
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	line := tenant + " " + strings.Join(names, ",") + " " + HashToken(token)
	if _, err := parseTokenLine(line); err != nil {
		return "", err
	}
	return line, nil
}

// ParseScopes parses a comma list of scopes (`solve,jobs`): each must be
// one of AllScopes, listed once.
func ParseScopes(list string) ([]Scope, error) {
	var scopes []Scope
	for _, name := range strings.Split(list, ",") {
		s := Scope(name)
		switch {
		case !slices.Contains(AllScopes, s):
			return nil, fmt.Errorf("unknown scope %q (want a comma list of solve, jobs, admin)", name)
		case slices.Contains(scopes, s):
			return nil, fmt.Errorf("scope %q listed twice", name)
		}
		scopes = append(scopes, s)
	}
	return scopes, nil
}

// parseAuthFile reads an auth file. Its error names every bad line by
// number (name:LINE: reason), so an operator can fix them all at once.
func parseAuthFile(name string, r io.Reader) (*tokenStore, error) {
	st := &tokenStore{}
	firstLine := map[[sha256.Size]byte]int{}
	var errs []error
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(text) == "" {
			continue
		}
		e, err := parseTokenLine(text)
		if err == nil {
			if prev, dup := firstLine[e.hash]; dup {
				err = fmt.Errorf("the same token hash as line %d", prev)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, err))
			continue
		}
		firstLine[e.hash] = n
		st.entries = append(st.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return st, nil
}

// parseTokenLine parses `TENANT SCOPES SHA256HEX` (comment removed).
func parseTokenLine(text string) (tokenEntry, error) {
	f := strings.Fields(text)
	if len(f) != 3 {
		return tokenEntry{}, fmt.Errorf("want TENANT SCOPES SHA256HEX, got %d fields", len(f))
	}
	if err := CheckTenant(f[0]); err != nil {
		return tokenEntry{}, err
	}
	scopes, err := ParseScopes(f[1])
	if err != nil {
		return tokenEntry{}, err
	}
	var e tokenEntry
	if len(f[2]) != hex.EncodedLen(sha256.Size) {
		return tokenEntry{}, fmt.Errorf("hash must be %d hex digits (the SHA-256 of the token), got %d characters",
			hex.EncodedLen(sha256.Size), len(f[2]))
	}
	if _, err := hex.Decode(e.hash[:], []byte(f[2])); err != nil {
		return tokenEntry{}, fmt.Errorf("hash is not hex: %w", err)
	}
	e.principal = Principal{Tenant: f[0], Scopes: scopes}
	return e, nil
}

// lookup returns the principal of a presented token. The token is hashed
// and compared with every stored hash by subtle.ConstantTimeCompare, with
// no early exit, so the time taken depends on the number of lines only,
// not on which line matches or how much of a hash a guess shares. (The
// hashing alone already makes a byte-by-byte timing attack pointless: a
// client controls the token, not its hash. The full scan keeps the code
// obviously free of that question; at microseconds per thousand lines it
// costs nothing.)
func (st *tokenStore) lookup(token string) (Principal, bool) {
	sum := sha256.Sum256([]byte(token))
	match := -1
	for i := range st.entries {
		eq := subtle.ConstantTimeCompare(sum[:], st.entries[i].hash[:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return Principal{}, false
	}
	return st.entries[match].principal, true
}

// tenants returns the number of distinct tenants (for the log).
func (st *tokenStore) tenants() int {
	seen := map[string]bool{}
	for _, e := range st.entries {
		seen[e.principal.Tenant] = true
	}
	return len(seen)
}
