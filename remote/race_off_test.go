//go:build !race

package remote

// raceBuild: see skipUnderRace.
const raceBuild = false
