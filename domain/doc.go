// Package domain is the pure core of Phoenix Desktop: the Conversation aggregate, its sealed
// State, the Events that can happen to it, the Effects it asks for, and Transition, the one
// function that decides what happens next (REQ-BED-001).
//
// The package must never do I/O, read a clock, draw random numbers, start goroutines or import
// another package of this module. Everything that varies (ids, times, results of the outside
// world) arrives on events, so Transition is deterministic and can be property-tested
// exhaustively. The actors carry out the effects; the store persists what Transition returns;
// the UI only shows it.
package domain
