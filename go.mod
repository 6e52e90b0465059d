module github.com/phoenix-desktop/phoenix

go 1.26
