package ui

// PrefLastConversation is the preference under which the window keeps the conversation it
// reopens at start; the bench's idle row sets it to open a large conversation with the
// composer focused, as a person finds it after a restart.
const PrefLastConversation = prefLastConv
