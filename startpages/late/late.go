// Package late is the second release of the binary's start-up pages during package
// initialisation (startpages.Release), at about four fifths of it: between startpages' own at
// two fifths and main's at the end, where the largest initialisations (Fyne, protobuf,
// goldmark, net/http) come. Imported by main only for this.
//
// Its place comes from its import of crypto/x509: the Go toolchain initialises, of the
// packages whose imports are all initialised, the first by import path, and this path sorts
// before everything else still waiting then, so it runs right after crypto/x509's
// initialisation. Nothing here uses crypto/x509; if the order moves, only the peak changes
// (TestReleasesRunAtTwoFifthsAndFourFifthsOfInitialisation_Issue39 says so).
package late

import (
	_ "crypto/x509" // its place in package initialisation (see the package comment)

	"github.com/phoenix-desktop/phoenix/startpages"
)

func init() { startpages.Release() }
