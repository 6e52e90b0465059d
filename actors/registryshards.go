package actors

import cmap "github.com/orcaman/concurrent-map"

// processRegistryShards is how many shards each map of protoactor's process registry has.
// The registry makes 1,024 concurrent maps of cmap.SHARD_COUNT shards each (32 by default):
// 32,768 Go maps, 2.9 MB in 67,000 allocations and 3–11 ms for every actor system before its
// first actor, which every cold `chat` paid (issue 28; BenchmarkActorSystemStart). The app
// runs tens of actors, and the registry's 1,024 buckets already spread them over as many
// locks, so one shard per map loses nothing.
const processRegistryShards = 1

// Lowered before main, before any actor system exists. Lowering is safe at any time (a map
// made with more shards uses its first ones); raising it would not be once a map exists,
// which is why nothing else sets it.
func init() { cmap.SHARD_COUNT = processRegistryShards }
