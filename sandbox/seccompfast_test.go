//go:build linux

package sandbox

import (
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// filterKeys are the filters a supervisor can load: every Landlock ABI, with and without the
// mount view and the supervisor's answers.
func filterKeys() []programKey {
	var keys []programKey
	for abi := MinABI; abi <= len(landlockPresets); abi++ {
		for _, view := range []bool{false, true} {
			for _, notify := range []bool{false, true} {
				keys = append(keys, programKey{abi: abi, mountView: view, supervisorPID: 4242, notify: notify})
			}
		}
	}
	return keys
}

// TestFastPathDecidesAsTheListDoes_REQ_BED_014 runs every filter with and without the fast
// path in front over every system call number below the fast path's bound and past it
// (x32's too), with the foreign architectures, and arguments that the routings test for
// (the supervisor's pid, 0, socket domains and types, clone's namespace flags, fcntl and
// ioctl commands) as well as random ones: the decisions must be the same.
func TestFastPathDecidesAsTheListDoes_REQ_BED_014(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	arches := []uint32{uint32(native.ID), uint32(arch.I386.ID), uint32(arch.ARM.ID), 0}
	interesting := []uint32{0, 1, 4242, ^uint32(0), unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK, unix.AF_UNIX,
		unix.SOCK_STREAM, unix.SOCK_DGRAM, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE,
		unix.CLONE_NEWUSER, unix.CLONE_NEWNS | unix.CLONE_VM, unix.F_SETOWN, unix.F_SETOWN_EX, unix.F_GETFL,
		unix.TIOCSTI, unix.TCGETS, unix.TIOCINQ, unix.PRIO_PROCESS, unix.PRIO_PGRP}
	numbers := []uint32{}
	for nr := uint32(0); nr < fastPathLimit+64; nr++ {
		numbers = append(numbers, nr)
	}
	for nr := uint32(0); nr < 600; nr += 7 {
		numbers = append(numbers, nr|uint32(arch.X32.SeccompMask))
	}
	numbers = append(numbers, ^uint32(0), 1<<31)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, key := range filterKeys() {
		listKey := key
		listKey.listOnly = true
		withFast, list := vmOf(t, key), vmOf(t, listKey)
		data := make([]byte, 64)
		for _, nr := range numbers {
			for _, a := range arches {
				for round := range 12 {
					binary.BigEndian.PutUint32(data[0:], nr)
					binary.BigEndian.PutUint32(data[4:], a)
					for i := 8; i < 64; i += 4 {
						binary.BigEndian.PutUint32(data[i:], rng.Uint32())
					}
					for i := range 6 {
						v := rng.Uint32()
						if round%2 == 0 {
							v = interesting[rng.IntN(len(interesting))]
						}
						binary.BigEndian.PutUint32(data[argLow(i):], v)
					}
					got, err1 := withFast.Run(data)
					want, err2 := list.Run(data)
					if err1 != nil || err2 != nil {
						t.Fatalf("run the filter: %v, %v", err1, err2)
					}
					if got != want {
						t.Fatalf("%+v: call %#x of arch %#x with %x: %#x with the fast path, %#x without", key, nr, a, data[16:], got, want)
					}
				}
			}
		}
	}
}

// TestFastPathAllowsOrdinaryCallsAtOnce: the kernel walks the filter for every system call
// number when it loads it, once per command; an ordinary call must be allowed within a few
// steps, not at the end of the list.
func TestFastPathAllowsOrdinaryCallsAtOnce(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range filterKeys() {
		insts, err := seccompFilter(key)
		if err != nil {
			t.Fatal(err)
		}
		for _, nr := range []uint32{unix.SYS_READ, unix.SYS_MMAP, unix.SYS_EXECVE, unix.SYS_OPENAT, unix.SYS_EXIT_GROUP} {
			allowed, steps := constWalk(insts, nr, uint32(native.ID))
			if !allowed {
				t.Fatalf("%+v: call %d is not allowed whatever its arguments", key, nr)
			}
			if steps > 16 {
				t.Errorf("%+v: call %d is allowed after %d steps of the filter's %d; want at most 16", key, nr, steps, len(insts))
			}
		}
	}
}

func vmOf(t *testing.T, key programKey) *bpf.VM {
	t.Helper()
	insts, err := seccompFilter(key)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatalf("the filter is not a valid BPF program: %v", err)
	}
	return vm
}

// BenchmarkLoadSeccompFilter loads the filter on a thread of its own, as each Restricted
// command does, with and without the fast path; the kernel walks it for every system call
// number while loading it. load-ns/op is the seccomp(2) call alone, without the thread's
// start and end.
func BenchmarkLoadSeccompFilter(b *testing.B) {
	for _, listOnly := range []bool{true, false} {
		name := "with the fast path"
		if listOnly {
			name = "list only"
		}
		b.Run(name, func(b *testing.B) {
			filter, err := seccompProgram(programKey{abi: probeKernel().ABI, mountView: true, notify: true, supervisorPID: uint32(unix.Getpid()), listOnly: listOnly})
			if err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			defer func() { b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "load-ns/op") }()
			for b.Loop() {
				done := make(chan error, 1)
				go func() {
					// Never unlocked: the thread ends with the goroutine, its filter with it.
					runtime.LockOSThread()
					if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
						done <- err
						return
					}
					t0 := time.Now()
					fd, err := loadSeccomp(filter, true)
					total += time.Since(t0)
					if err == nil {
						_ = unix.Close(fd)
					}
					done <- err
				}()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
