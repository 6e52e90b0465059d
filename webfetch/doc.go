// Package webfetch fetches one web page for the fetch_url tool and turns it into text a model
// can read: HTML becomes Markdown, other text passes through, binary content is refused.
//
// # The way out
//
// Fetch never chooses the network itself; its caller says which way a conversation may go.
// Options.ProxySocket set (Project mode): every connection — http and https alike — is a
// CONNECT tunnel through that unix socket, the conversation's socket of the app's proxy
// (package proxy), so the proxy judges each host:port against the project's allowed hosts
// and asks the person about a new one with the same card a command's traffic gets. A
// refusal comes back as a *ProxyError (Refused) carrying the proxy's own words. Nothing is resolved
// or dialled here in that case: the proxy resolves names. Options.Direct (Unrestricted
// mode) dials directly, honouring the person's proxy variables. With neither, Fetch refuses
// to run (ErrNoNetwork): a missing setting never opens the network.
//
// # Limits
//
// Each step — connecting, the TLS handshake, waiting for the answer's header, reading its
// body — has Options.Timeout; the wait for the person's answer to a host card has none but
// the caller's context (Stop), because a person deciding is not a slow server. Redirects
// are followed up to Options.MaxRedirects. At most Options.MaxBodyBytes of a body is read
// (after decompression, so a compressed bomb costs no more); Page.BodyCut says when more
// was there. The caller caps what the model gets.
//
// # HTML
//
// The page is parsed with golang.org/x/net/html and converted by
// github.com/JohannesKaufmann/html-to-markdown/v2 (CommonMark, tables, strikethrough):
// chosen because it is maintained, converts whole real-world pages rather than fragments,
// keeps code blocks' languages, makes links absolute against the page's address, and lets
// tags be removed or rendered by rule. Before converting, noise is cut (scripts, styles,
// navigation, site headers and footers, forms, hidden elements), and when the page marks
// its <main> content only that is kept. Images become links, "[Image: alt](address)": the
// model learns they are there and where, nothing is downloaded, an inline data: image is
// dropped to its alt text, and a Markdown viewer showing the result loads nothing.
//
// # What it may import
//
// Nothing of ours: the standard library, golang.org/x/net (html, charset) and
// html-to-markdown. The tools package owns the words the model reads.
package webfetch
