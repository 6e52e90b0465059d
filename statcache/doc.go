// Package statcache keeps what was made of a small configuration file for as long as the file
// is the same one, so that a file read at every event (the hooks files and .mcp.json, read
// before and after every tool call) costs a stat instead of a read and a parse (issue 39).
//
// The same file means the same device, inode, size, modification and change time (in
// nanoseconds): an edit in place changes the times, a save by rename the inode. A file that
// changed less than Settle before it was read is read again next time, because a file system
// with coarse times could change it again without a visible difference. What a read made of
// a file is kept with its error, since the same bytes give the same error.
//
// It imports only the standard library and golang.org/x/sys/unix.
package statcache
