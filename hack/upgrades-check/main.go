// Command upgrades-check computes, independently of src/client, the one-step upgrades of every
// entry of every channel of FBC blobs read as JSON lines on stdin, with the rule of
// operator-controller's legacy successor predicate: entry E upgrades B when E.replaces == B,
// E.skips contains B, or B's version is in E.skipRange as github.com/blang/semver/v4 parses
// it (the library operator-registry and OLM use). It prints one JSON line per (package,
// channel, entry) with the sorted successors and how each is reached.
//
// With -install-modes: one JSON line per package with the install modes its default channel's
// head supports (olm.csv.metadata installModes with supported=true, else those of the
// ClusterServiceVersion in an olm.bundle.object; no line for a package whose default channel
// has no single head or whose head has neither).
//
// Also, with -ranges: reads lines `RANGE<TAB>VERSION` and prints `true`, `false` or
// `error` for each (blang's ParseRange and Parse), to check semver.ts against blang itself.
//
//	go run . < blobs.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

type entry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces"`
	Skips     []string `json:"skips"`
	SkipRange string   `json:"skipRange"`
}

type blob struct {
	Schema     string  `json:"schema"`
	Package    string  `json:"package"`
	Name       string  `json:"name"`
	Entries    []entry `json:"entries"`
	Properties []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"properties"`
}

type successor struct {
	Name string   `json:"name"`
	Via  []string `json:"via"`
}

type result struct {
	Package    string      `json:"package"`
	Channel    string      `json:"channel"`
	From       string      `json:"from"`
	Successors []successor `json:"successors"`
}

func main() {
	ranges := flag.Bool("ranges", false, "evaluate RANGE<TAB>VERSION lines")
	installModes := flag.Bool("install-modes", false, "print the install modes of each package's default channel head")
	flag.Parse()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	if *ranges {
		for in.Scan() {
			parts := strings.SplitN(in.Text(), "\t", 2)
			r, err := semver.ParseRange(parts[0])
			if err != nil {
				fmt.Fprintln(out, "error")
				continue
			}
			v, err := semver.Parse(parts[1])
			if err != nil {
				fmt.Fprintln(out, "error")
				continue
			}
			fmt.Fprintln(out, r(v))
		}
		return
	}
	versions := map[string]map[string]string{} // package → bundle → version
	var channels []blob
	defaults := map[string]string{}              // package → default channel
	csvModes := map[string]map[string][]string{} // package → bundle → supported modes
	bundleObjectSeen := map[string]bool{}
	csvMetadataSeen := map[string]bool{}
	for in.Scan() {
		var b blob
		if err := json.Unmarshal(in.Bytes(), &b); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		switch b.Schema {
		case "olm.package":
			var p struct {
				DefaultChannel string `json:"defaultChannel"`
			}
			_ = json.Unmarshal(in.Bytes(), &p)
			defaults[b.Name] = p.DefaultChannel
		case "olm.channel":
			channels = append(channels, b)
		case "olm.bundle":
			// A CSV only inside olm.bundle.object (base64 JSON manifest): its spec.installModes,
			// unless olm.csv.metadata says otherwise (read below, it wins).
			for _, p := range b.Properties {
				if p.Type != "olm.bundle.object" {
					continue
				}
				var obj struct {
					Data []byte `json:"data"` // encoding/json decodes base64 into []byte
				}
				var csv struct {
					Kind string `json:"kind"`
					Spec struct {
						InstallModes []struct {
							Type      string `json:"type"`
							Supported bool   `json:"supported"`
						} `json:"installModes"`
					} `json:"spec"`
				}
				if json.Unmarshal(p.Value, &obj) != nil || json.Unmarshal(obj.Data, &csv) != nil || csv.Kind != "ClusterServiceVersion" {
					continue
				}
				modes := []string{}
				for _, im := range csv.Spec.InstallModes {
					if im.Supported {
						modes = append(modes, im.Type)
					}
				}
				if csvModes[b.Package] == nil {
					csvModes[b.Package] = map[string][]string{}
				}
				if _, seen := bundleObjectSeen[b.Package+"\x00"+b.Name]; !seen {
					csvModes[b.Package][b.Name] = modes
					bundleObjectSeen[b.Package+"\x00"+b.Name] = true
				}
			}
			for _, p := range b.Properties {
				if p.Type == "olm.csv.metadata" {
					var m struct {
						InstallModes []struct {
							Type      string `json:"type"`
							Supported bool   `json:"supported"`
						} `json:"installModes"`
					}
					if json.Unmarshal(p.Value, &m) == nil {
						modes := []string{}
						for _, im := range m.InstallModes {
							if im.Supported {
								modes = append(modes, im.Type)
							}
						}
						if csvModes[b.Package] == nil {
							csvModes[b.Package] = map[string][]string{}
						}
						if !csvMetadataSeen[b.Package+"\x00"+b.Name] {
							csvModes[b.Package][b.Name] = modes
							csvMetadataSeen[b.Package+"\x00"+b.Name] = true
						}
					}
				}
			}
			for _, p := range b.Properties {
				if p.Type != "olm.package" {
					continue
				}
				var v struct {
					Version string `json:"version"`
				}
				if json.Unmarshal(p.Value, &v) == nil {
					if versions[b.Package] == nil {
						versions[b.Package] = map[string]string{}
					}
					versions[b.Package][b.Name] = v.Version
				}
				break
			}
		}
	}
	enc := json.NewEncoder(out)
	if *installModes {
		for _, c := range channels {
			if defaults[c.Package] != c.Name {
				continue
			}
			incoming := map[string]bool{}
			for _, e := range c.Entries {
				if e.Replaces != "" {
					incoming[e.Replaces] = true
				}
				for _, s := range e.Skips {
					incoming[s] = true
				}
			}
			heads := map[string]bool{}
			for _, e := range c.Entries {
				if !incoming[e.Name] {
					heads[e.Name] = true
				}
			}
			if len(heads) != 1 {
				continue
			}
			for head := range heads {
				modes, ok := csvModes[c.Package][head]
				if !ok {
					continue
				}
				sort.Strings(modes)
				_ = enc.Encode(map[string]any{"package": c.Package, "modes": modes})
			}
		}
		return
	}
	for _, c := range channels {
		for _, from := range c.Entries {
			var installed *semver.Version
			if v, err := semver.Parse(versions[c.Package][from.Name]); err == nil {
				installed = &v
			}
			byName := map[string][]string{}
			for _, e := range c.Entries {
				if e.Name == from.Name {
					continue
				}
				if e.Replaces == from.Name {
					byName[e.Name] = append(byName[e.Name], "replaces")
				}
				for _, s := range e.Skips {
					if s == from.Name {
						byName[e.Name] = append(byName[e.Name], "skips")
						break
					}
				}
				if e.SkipRange != "" && installed != nil {
					if r, err := semver.ParseRange(e.SkipRange); err == nil && r(*installed) {
						byName[e.Name] = append(byName[e.Name], "skipRange")
					}
				}
			}
			succ := []successor{}
			for n, via := range byName {
				succ = append(succ, successor{Name: n, Via: dedupe(via)})
			}
			sort.Slice(succ, func(i, j int) bool { return succ[i].Name < succ[j].Name })
			if err := enc.Encode(result{Package: c.Package, Channel: c.Name, From: from.Name, Successors: succ}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
}

func dedupe(via []string) []string {
	order := map[string]int{"replaces": 0, "skips": 1, "skipRange": 2}
	seen := map[string]bool{}
	out := []string{}
	for _, v := range via {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return order[out[i]] < order[out[j]] })
	return out
}
