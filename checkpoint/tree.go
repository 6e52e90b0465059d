package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteSampleTree fills dir with files files of about 600 bytes each, in directories of a
// hundred, plus an ignored node_modules: the tree the bench and the benchmarks snapshot. It
// returns the path of one file to change between snapshots.
func WriteSampleTree(dir string, files int) (string, error) {
	line := strings.Repeat("lorem ipsum dolor sit amet ", 22)
	var last string
	for i := 0; i < files; i++ {
		sub := filepath.Join(dir, "src", fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return "", err
			}
		}
		last = filepath.Join(sub, fmt.Sprintf("f%03d.go", i%100))
		if err := os.WriteFile(last, fmt.Appendf(nil, "package d // file %d\n// %s\n", i, line), 0o644); err != nil {
			return "", err
		}
	}
	nm := filepath.Join(dir, "node_modules", "dep")
	if err := os.MkdirAll(nm, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(nm, "index.js"), []byte("module.exports = {}\n"), 0o644); err != nil {
		return "", err
	}
	return last, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules/\n"), 0o644)
}

// DirSize is the disk space the files under dir take, in bytes (blocks allocated).
func DirSize(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += diskUsage(info)
		return nil
	})
	return total, err
}
