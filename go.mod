module github.com/xflex/xflex

go 1.24.0

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/rs/zerolog v1.35.1
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
