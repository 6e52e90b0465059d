package checkpoint

import (
	"os"
	"syscall"
)

func diskUsage(info os.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}
