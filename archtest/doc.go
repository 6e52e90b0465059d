// Package archtest keeps the import rules of docs/ARCHITECTURE.md true. The table between the
// "imports:begin" and "imports:end" markers there is the one home of those rules: the test
// reads it, lists every package of the module with the go command, and fails when a package
// imports a package of ours that its row does not allow, or when a package has no row.
//
// It has no code outside its test and imports nothing of ours.
package archtest
