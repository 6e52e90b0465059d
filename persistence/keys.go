package persistence

import (
	"fmt"
	"strconv"
	"strings"
)

// Key prefixes; doc.go describes the layout.
const (
	prefixConv      = "conv/"
	prefixSummary   = "sum/"
	prefixKid       = "kid/"
	prefixMsg       = "msg/"
	prefixBlob      = "blob/"
	prefixBlobCount = "bcnt/"
	prefixConvBlob  = "cblob/"
	prefixDeleting  = "del/"
	prefixAux       = "aux/"
	keySchema       = "meta/schema"
)

func convKey(id string) []byte    { return []byte(prefixConv + id) }
func summaryKey(id string) []byte { return []byte(prefixSummary + id) }
func kidPrefix(parent string) []byte {
	return []byte(prefixKid + parent + "/")
}
func kidKey(parent, child string) []byte { return []byte(prefixKid + parent + "/" + child) }
func msgPrefix(id string) []byte         { return []byte(prefixMsg + id + "/") }

// msgKey zero-pads the sequence so that byte order is sequence order.
func msgKey(id string, seq uint64) []byte {
	return fmt.Appendf(nil, "%s%s/%020d", prefixMsg, id, seq)
}
func blobKey(sha string) []byte         { return []byte(prefixBlob + sha) }
func blobCountKey(sha string) []byte    { return []byte(prefixBlobCount + sha) }
func convBlobPrefix(id string) []byte   { return []byte(prefixConvBlob + id + "/") }
func convBlobKey(id, sha string) []byte { return []byte(prefixConvBlob + id + "/" + sha) }
func deletingKey(id string) []byte      { return []byte(prefixDeleting + id) }

// seqFromMsgKey reads the sequence back from a message key, so that a value whose own Seq
// disagrees with its key is caught as corrupt.
func seqFromMsgKey(key []byte) (uint64, error) {
	s := string(key)
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return 0, fmt.Errorf("message key %q has no sequence", s)
	}
	return strconv.ParseUint(s[i+1:], 10, 64)
}

// checkID refuses ids that would make key prefixes ambiguous: a slash would let
// "msg/a/b/…" belong to both "a" and "a/b".
func checkID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: conversation id is empty", ErrInvalid)
	}
	if strings.ContainsAny(id, "/\x00") {
		return fmt.Errorf("%w: conversation id %q contains '/' or NUL", ErrInvalid, id)
	}
	return nil
}

// validSHA256 accepts only the lowercase hex digests PutBlob hands out.
func validSHA256(sha string) bool {
	if len(sha) != 64 {
		return false
	}
	for _, r := range sha {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}
