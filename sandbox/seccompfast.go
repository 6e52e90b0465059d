//go:build linux

package sandbox

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The filter as seccompFilter writes it is a list: an ordinary system call (read, mmap,
// execve) walks past every comparison in it before it reaches "allow". That costs little
// when a call runs, because the kernel keeps a bitmap of the calls a filter always allows;
// but the kernel builds that bitmap when the filter is loaded — once per command — by
// walking the filter for every system call number, with the thread's signal lock held.
// fastPath puts a binary search over the call number in front: every number the rest of the
// filter allows whatever the arguments returns "allow" after a handful of comparisons, and
// every other one goes on to the rest unchanged. Which numbers those are is found by walking
// the rest as the kernel does (constAllowed), so the fast path cannot drift from it.

// fastPathLimit bounds the numbers the fast path answers; every number at or above it goes
// on to the rest of the filter. The highest system call is in the 400s on every
// architecture Linux numbers alike (x32's numbers lie far above and go on too).
const fastPathLimit = 1024

// fastPath returns the instructions to place where the accumulator holds the system call
// number of a call of the native architecture, before rest: they return SECCOMP_RET_ALLOW
// for every number below fastPathLimit that rest allows whatever the arguments, and fall
// through to rest, with the accumulator unchanged, for every other number. It returns nil
// when the search would not fit the 8-bit jumps of classic BPF; the filter is then the same
// without it.
func fastPath(rest []bpf.Instruction, nativeArch uint32) []bpf.Instruction {
	// Segments of the number line, alternately allowed and not, each starting at its bound.
	type segment struct {
		start uint32
		allow bool
	}
	var segs []segment
	for nr := uint32(0); nr < fastPathLimit; nr++ {
		allow := constAllowed(rest, nr, nativeArch)
		if len(segs) == 0 || segs[len(segs)-1].allow != allow {
			segs = append(segs, segment{nr, allow})
		}
	}
	if segs[len(segs)-1].allow {
		segs = append(segs, segment{fastPathLimit, false})
	}
	// A leaf to "go on" is a jump to the end of the fast path, patched once its length is
	// known.
	var out []bpf.Instruction
	var onward []int
	ok := true
	var emit func(i, j int)
	emit = func(i, j int) {
		if i == j {
			if segs[i].allow {
				out = append(out, bpf.RetConstant{Val: retAllow})
			} else {
				onward = append(onward, len(out))
				out = append(out, bpf.Jump{})
			}
			return
		}
		mid := (i + j + 1) / 2
		at := len(out)
		out = append(out, nil)
		emit(i, mid-1)
		skip := len(out) - at - 1
		if skip > 255 {
			ok = false
		}
		out[at] = bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: segs[mid].start, SkipTrue: uint8(skip)}
		emit(mid, j)
	}
	emit(0, len(segs)-1)
	if !ok {
		return nil
	}
	for _, at := range onward {
		out[at] = bpf.Jump{Skip: uint32(len(out) - at - 1)}
	}
	return out
}

// constAllowed reports whether prog, entered with the accumulator holding nr, returns
// SECCOMP_RET_ALLOW for every call with that number and the native architecture, whatever
// its arguments and instruction pointer. Like the kernel's own check
// (seccomp_is_const_allow), it follows only loads of the number and the architecture,
// constant loads and arithmetic, and jumps; anything else — an argument read, an
// instruction it does not know — makes the answer no, which sends the number on to prog
// itself.
func constAllowed(prog []bpf.Instruction, nr, nativeArch uint32) bool {
	allowed, _ := constWalk(prog, nr, nativeArch)
	return allowed
}

// constWalk is constAllowed, and how many instructions it followed.
func constWalk(prog []bpf.Instruction, nr, nativeArch uint32) (allowed bool, steps int) {
	a, x := nr, uint32(0)
	for pc := 0; pc >= 0 && pc < len(prog) && steps <= len(prog); pc++ {
		steps++
		switch in := prog[pc].(type) {
		case bpf.LoadAbsolute:
			if in.Size != 4 {
				return false, steps
			}
			switch in.Off {
			case 0: // seccomp_data.nr
				a = nr
			case 4: // seccomp_data.arch
				a = nativeArch
			default:
				return false, steps
			}
		case bpf.LoadConstant:
			if in.Dst == bpf.RegA {
				a = in.Val
			} else {
				x = in.Val
			}
		case bpf.ALUOpConstant:
			switch in.Op {
			case bpf.ALUOpAnd:
				a &= in.Val
			case bpf.ALUOpOr:
				a |= in.Val
			default:
				return false, steps
			}
		case bpf.Jump:
			pc += int(in.Skip)
		case bpf.JumpIf:
			holds, known := condHolds(in.Cond, a, in.Val)
			if !known {
				return false, steps
			}
			if holds {
				pc += int(in.SkipTrue)
			} else {
				pc += int(in.SkipFalse)
			}
		case bpf.JumpIfX:
			holds, known := condHolds(in.Cond, a, x)
			if !known {
				return false, steps
			}
			if holds {
				pc += int(in.SkipTrue)
			} else {
				pc += int(in.SkipFalse)
			}
		case bpf.RetConstant:
			return in.Val == unix.SECCOMP_RET_ALLOW, steps
		default:
			return false, steps
		}
	}
	return false, steps
}

// condHolds evaluates a jump's test; known is false for a test it does not know.
func condHolds(c bpf.JumpTest, a, v uint32) (holds, known bool) {
	switch c {
	case bpf.JumpEqual:
		return a == v, true
	case bpf.JumpNotEqual:
		return a != v, true
	case bpf.JumpGreaterThan:
		return a > v, true
	case bpf.JumpLessThan:
		return a < v, true
	case bpf.JumpGreaterOrEqual:
		return a >= v, true
	case bpf.JumpLessOrEqual:
		return a <= v, true
	case bpf.JumpBitsSet:
		return a&v != 0, true
	case bpf.JumpBitsNotSet:
		return a&v == 0, true
	}
	return false, false
}
