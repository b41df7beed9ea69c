package jsonbench

import (
	"context"
	"strings"
	"testing"
)

// TestReportSmall runs the whole table on a 1,000-task request: every
// candidate succeeds, and the table has a row per job and library.
func TestReportSmall(t *testing.T) {
	var b strings.Builder
	if err := Report(context.Background(), &b, "small"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{JobGeneric, JobValidate, JobTyped, JobEncode, JobFlex, JobCMMF, "goccy/go-json", "bytedance/sonic", "jsonschema/v6"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	t.Log("\n" + b.String())
}
