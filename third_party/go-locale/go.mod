module github.com/jeandeaual/go-locale

go 1.18

require golang.org/x/sys v0.27.0
