//go:build !wayland

package clipboard

// toolOrder is the order tools are tried in. The window is an X client in this build (Fyne
// on GLFW's X11 backend, through XWayland in a Wayland session), and Fyne's own text paste
// reads the X clipboard, so xclip reads the same clipboard the person copied into; XWayland
// hands the Wayland clipboard to the focused X window. wl-paste is the fallback for a
// Wayland session without xclip; it may briefly take the focus on compositors without the
// data-control protocol (GNOME), which xclip never does.
var toolOrder = []Tool{XClip, WLPaste}
