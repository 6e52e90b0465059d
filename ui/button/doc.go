// Package button is the app's one push button: Fyne's widget.Button that also acts on Enter
// and the keypad's Enter when it has the focus, as GNOME's buttons do. Fyne 2.7's own button
// acts only on Space, so a person who Tabs to a button and presses Enter got nothing.
//
// Every button in the window (package ui and its sub-packages, dialogs included) is made here;
// a test in package ui scans the sources for widget.NewButton outside this package. It imports
// nothing of ours.
//
// A Refresh that reaches a button from its container (the window refreshes whole panes when
// a part is shown or hidden) redraws it only when its text, icon, importance, alignment,
// enabled state, theme or scale changed since the last one: Fyne's button re-colours
// and re-parses its SVG icon on every refresh (issue 36, open fast).
package button
