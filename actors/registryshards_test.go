package actors

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	cmap "github.com/orcaman/concurrent-map"
)

// The package's init has lowered the registry's shards before any test's actor system.
func TestProcessRegistryShardsAreLowered(t *testing.T) {
	if cmap.SHARD_COUNT != processRegistryShards {
		t.Fatalf("cmap.SHARD_COUNT = %d, want %d", cmap.SHARD_COUNT, processRegistryShards)
	}
	s := actor.NewActorSystem()
	defer s.Shutdown()
	if got := len(s.ProcessRegistry.LocalPIDs.GetBucket("any")); got != processRegistryShards {
		t.Fatalf("a registry bucket has %d shards, want %d", got, processRegistryShards)
	}
}

// BenchmarkActorSystemStart is the cost of a new actor system (each cold `chat` makes one)
// with protoactor's default 32 shards per registry map, the baseline, beside the app's.
// Run alone (go test -run NONE -bench ActorSystemStart): the baseline raises the shard count,
// which is safe only while no other actor system lives.
func BenchmarkActorSystemStart(b *testing.B) {
	for _, c := range []struct {
		name   string
		shards int
	}{{"protoactor default, 32 shards (baseline)", 32}, {"the app's, 1 shard", processRegistryShards}} {
		b.Run(c.name, func(b *testing.B) {
			cmap.SHARD_COUNT = c.shards
			defer func() { cmap.SHARD_COUNT = processRegistryShards }()
			b.ReportAllocs()
			for b.Loop() {
				actor.NewActorSystem().Shutdown()
			}
		})
	}
}
