package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

func TestDoctorRemoteListsTheRemoteLayersAndForgetRemovesTheAgent(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	opts := Options{Destination: s.Dest, ConfigFile: s.Config}
	var out bytes.Buffer
	if err := Doctor(context.Background(), opts, &out, false); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.HasPrefix(text, "On "+s.Dest+" (Linux ") || !strings.Contains(text, "Landlock") {
		t.Errorf("doctor --remote printed:\n%s", text)
	}
	out.Reset()
	if err := Doctor(context.Background(), opts, &out, true); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Host   string `json:"host"`
		Agent  string `json:"agent"`
		Layers struct {
			Layers []struct{ Name string } `json:"layers"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil || report.Host != s.Dest || len(report.Layers.Layers) == 0 {
		t.Errorf("doctor --remote --json: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(report.Agent); err != nil {
		t.Fatalf("the agent is not where doctor says: %v", err)
	}

	if err := Forget(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Home, ".cache", "phoenix-desktop")); !os.IsNotExist(err) {
		t.Errorf("Forget left the agent's folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Home, ".cache")); err != nil {
		t.Errorf("Forget removed more than its own folder: %v", err)
	}
	s.WaitNoProcesses(t)
}
