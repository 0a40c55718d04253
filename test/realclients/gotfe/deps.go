// Package gotfe pins go-tfe for test/realclients: scripts/build-real-clients.sh compiles go-tfe's own
// integration tests (`go test -c github.com/hashicorp/go-tfe`) from this module, and the tests in
// test/realclients run them against a fresh Teamstage. The blank imports keep go-tfe and the imports of
// its tests in go.mod through `go mod tidy`, which keeps only what this module's packages import.
package gotfe

import (
	_ "github.com/hashicorp/go-tfe"
	_ "github.com/hashicorp/jsonapi"
	_ "github.com/stretchr/testify/assert"
	_ "github.com/stretchr/testify/require"
	_ "golang.org/x/time/rate"
)
