//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runFilter evaluates the filter in x/net/bpf's interpreter for one system call. The
// interpreter loads words big-endian, so seccomp_data is laid out big-endian here.
func runFilter(t *testing.T, nr, auditArch uint32) uint32 {
	t.Helper()
	insts, err := seccompFilter(MinABI, false)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatalf("the filter is not a valid BPF program: %v", err)
	}
	data := make([]byte, 64) // struct seccomp_data: nr, arch, ip, args[6]
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], auditArch)
	ret, err := vm.Run(data)
	if err != nil {
		t.Fatalf("run the filter: %v", err)
	}
	return uint32(ret)
}

// TestSeccompFilter_REQ_BED_014 checks the decisions of the filter without loading it.
func TestSeccompFilter_REQ_BED_014(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	id := uint32(native.ID)
	const allow = unix.SECCOMP_RET_ALLOW
	cases := []struct {
		name string
		nr   uint32
		arch uint32
		want uint32
	}{
		{"socket denied", unix.SYS_SOCKET, id, retEPERM},
		{"io_uring_setup denied", unix.SYS_IO_URING_SETUP, id, retEPERM},
		{"ptrace denied", unix.SYS_PTRACE, id, retEPERM},
		{"fchmodat denied", unix.SYS_FCHMODAT, id, retEPERM},
		{"fchmodat2 denied", unix.SYS_FCHMODAT2, id, retEPERM},
		{"setxattrat denied (newer than the library's table)", unix.SYS_SETXATTRAT, id, retEPERM},
		{"file_setattr denied (newer than the library's table)", unix.SYS_FILE_SETATTR, id, retEPERM},
		{"read allowed", unix.SYS_READ, id, allow},
		{"openat allowed", unix.SYS_OPENAT, id, allow},
		{"socketpair allowed", unix.SYS_SOCKETPAIR, id, allow},
		{"execve allowed", unix.SYS_EXECVE, id, allow},
		{"utimensat allowed", unix.SYS_UTIMENSAT, id, allow},
		// A 32-bit system call (int 0x80) on x86-64 carries AUDIT_ARCH_I386; the library on
		// its own would let it through. 102 is socketcall there.
		{"foreign architecture denied", 102, unix.AUDIT_ARCH_I386, retEPERM},
		{"foreign architecture denied even for read", 3, unix.AUDIT_ARCH_ARM, retEPERM},
	}
	if native.ID == arch.X86_64.ID {
		cases = append(cases, struct {
			name string
			nr   uint32
			arch uint32
			want uint32
		}{"x32 calling convention denied", unix.SYS_READ | 0x40000000, id, unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := runFilter(t, c.nr, c.arch); got != c.want {
				t.Errorf("filter returned %#x, want %#x", got, c.want)
			}
		})
	}
}

func TestDeniedSyscallsKnownToLibrary(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	// Names missing on this architecture are skipped by design, but socket and ptrace exist
	// everywhere: if they were missing, the table lookup itself would be broken.
	for _, n := range []string{"socket", "ptrace", "io_uring_setup", "fchmodat", "setxattr"} {
		if _, ok := native.SyscallNames[n]; !ok {
			t.Errorf("%s is not in the syscall table of %s", n, native.Name)
		}
	}
}
