//go:build race

package remote

// raceBuild: see skipUnderRace.
const raceBuild = true
