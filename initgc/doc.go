// Package initgc keeps the Go collector off while the app binary's packages initialise, from
// its own initialisation until main turns it back on with Restore as its first step. It
// imports nothing of ours and only os, runtime/debug and sync/atomic of the standard library,
// so it is initialised as soon as no package before it by import path is ready (Go's order:
// at each step, the first package by import path whose imports are all initialised): in the
// app binary after 180 of 270 packages, which allocate 0.9 MB together, and before Fyne's
// translations, prometheus and goldmark, which allocate most of the rest
// (TestInitGCComesBeforeTheHeavyInits in cmd/phoenix-desktop keeps it so).
//
// Why: the binary's package initialisation (some 270 packages: the protobuf descriptors
// protoactor brings, goldmark's tables, Fyne's fonts…) allocated 3 MB, most of it kept (2.2 MB
// once Fyne's translations were parsed on first use, third_party/go-i18n), and passed the
// runtime's first heap goal (4 MB) on the way, so a collection ran
// during every start, headless or not, with little to free. Without it, `--version` and a
// one-turn chat each take about 1 ms less CPU and peak 0.9 MiB lower (issue 39; perf stat
// task-clock and the app's VmHWM, medians of 20 interleaved runs). GOGC or GOMEMLIMIT set by
// the person is left alone: then the runtime does as they say from the start.
//
// It may import nothing of ours.
package initgc
