package persistence

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// PutBlob stores image bytes once by content hash and returns the lowercase hex SHA-256 that
// messages reference (REQ-BED-013). Storing the same bytes again writes nothing.
//
// A blob lives as long as some conversation references it: Commit counts the conversations
// that reference each blob, and Delete drops a blob when the last of them goes, so a deleted
// screenshot does not linger. Bytes that were put but never committed in a message are kept.
func (s *Store) PutBlob(data []byte) (string, error) {
	if err := s.acquireWrite(); err != nil {
		return "", fmt.Errorf("store image: %w", err)
	}
	defer s.release()
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if len(data) > s.maxValue {
		return "", fmt.Errorf("store image %s: %w: %d bytes, more than the %d an image may take; resize it first", sha, ErrTooLarge, len(data), s.maxValue)
	}
	err := s.updateSized(int64(len(data)), func(txn *badger.Txn) error {
		stored, err := exists(txn, blobKey(sha))
		if err != nil || stored {
			return err
		}
		return txn.Set(blobKey(sha), data)
	})
	if err != nil {
		return "", fmt.Errorf("store image %s (%d bytes): %w", sha, len(data), err)
	}
	return sha, nil
}

// Blob returns the bytes stored under a hash. The bytes are checked against the hash, so a
// damaged image is reported (ErrCorrupt) instead of shown or sent.
func (s *Store) Blob(sha string) ([]byte, error) {
	if !validSHA256(sha) {
		return nil, fmt.Errorf("read image: %w: %q is not a lowercase hex SHA-256", ErrInvalid, sha)
	}
	if err := s.acquire(); err != nil {
		return nil, fmt.Errorf("read image: %w", err)
	}
	defer s.release()
	var data []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(blobKey(sha))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("image %s: %w", sha, ErrNotFound)
		}
		if err != nil {
			return err
		}
		data, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read image: %w", err)
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sha {
		return nil, fmt.Errorf("read image: %w", corrupt("", string(blobKey(sha)), errors.New("the bytes do not match their hash")))
	}
	return data, nil
}

// imagesOf lists the images a message references.
func imagesOf(m domain.Message) []domain.ImageRef {
	imgs := m.Images
	if m.ToolResult != nil && len(m.ToolResult.Images) > 0 {
		imgs = append(imgs[:len(imgs):len(imgs)], m.ToolResult.Images...)
	}
	return imgs
}

// refBlobs records, inside a commit's transaction, that conversation id references the
// images of msgs. Each image must already be stored (PutBlob before Commit). The count is read
// and written in the same transaction as Delete's decrement, so Badger's conflict detection
// keeps a commit from referencing a blob that a concurrent Delete drops.
func refBlobs(txn *badger.Txn, id string, msgs []domain.Message) error {
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, img := range imagesOf(m) {
			sha := img.SHA256
			if seen[sha] {
				continue
			}
			seen[sha] = true
			if !validSHA256(sha) {
				return fmt.Errorf("%w: message %d references image %q, which is not a lowercase hex SHA-256", ErrInvalid, m.Seq, sha)
			}
			referenced, err := exists(txn, convBlobKey(id, sha))
			if err != nil {
				return err
			}
			if referenced {
				continue
			}
			stored, err := exists(txn, blobKey(sha))
			if err != nil {
				return err
			}
			if !stored {
				return fmt.Errorf("message %d references image %s, which is not stored (attach it again): %w", m.Seq, sha, ErrNotFound)
			}
			n, err := blobCount(txn, sha)
			if err != nil {
				return err
			}
			if err := txn.Set(blobCountKey(sha), []byte(strconv.Itoa(n+1))); err != nil {
				return err
			}
			if err := txn.Set(convBlobKey(id, sha), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func blobCount(txn *badger.Txn, sha string) (int, error) {
	item, err := txn.Get(blobCountKey(sha))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read reference count of image %s: %w", sha, err)
	}
	var n int
	err = item.Value(func(v []byte) error {
		var err error
		n, err = strconv.Atoi(string(v))
		if err != nil {
			return decodeError{err}
		}
		return nil
	})
	if err != nil {
		return 0, classifyValueErr("", string(blobCountKey(sha)), err)
	}
	return n, nil
}

// releaseBlob drops conversation id's reference to a blob, and the blob with its last
// reference.
func releaseBlob(txn *badger.Txn, id, sha string) error {
	if err := txn.Delete(convBlobKey(id, sha)); err != nil {
		return err
	}
	n, err := blobCount(txn, sha)
	if err != nil {
		return err
	}
	if n > 1 {
		return txn.Set(blobCountKey(sha), []byte(strconv.Itoa(n-1)))
	}
	if err := txn.Delete(blobCountKey(sha)); err != nil {
		return err
	}
	return txn.Delete(blobKey(sha))
}
