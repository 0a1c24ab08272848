package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/operator-framework/operator-registry/alpha/declcfg"
)

// summary is the result: what was compared (counted on upstream's side) and every difference.
type summary struct {
	Upstream        string   `json:"upstream"`
	CatalogdTS      string   `json:"catalogdTs"`
	Packages        int      `json:"packages"`
	Channels        int      `json:"channels"`
	Bundles         int      `json:"bundles"`
	Deprecations    int      `json:"deprecations"`
	Others          int      `json:"others"`
	Resolutions     int      `json:"resolutions"`
	ResolvedBundles int      `json:"resolvedBundles"`
	Differences     []string `json:"differences"`
}

func (s *summary) differ(format string, args ...any) {
	s.Differences = append(s.Differences, fmt.Sprintf(format, args...))
}

func (s *summary) print(w io.Writer, maxDiffs int) {
	fmt.Fprintf(w, "upstream catalogd: %s\ncatalogd-ts:       %s\n", s.Upstream, s.CatalogdTS)
	fmt.Fprintf(w, "operator-controller's view: %d packages, %d channels, %d bundles, %d deprecations, %d other blobs\n",
		s.Packages, s.Channels, s.Bundles, s.Deprecations, s.Others)
	fmt.Fprintf(w, "resolutions: %d (%d found a bundle): per package, per channel, upgrade from each bundle\n",
		s.Resolutions, s.ResolvedBundles)
	if len(s.Differences) == 0 {
		fmt.Fprintln(w, "same: operator-controller sees the same catalog from both")
		return
	}
	fmt.Fprintf(w, "DIFFERENT: %d differences\n", len(s.Differences))
	for i, d := range s.Differences {
		if i == maxDiffs {
			fmt.Fprintf(w, "  ... and %d more\n", len(s.Differences)-maxDiffs)
			break
		}
		fmt.Fprintf(w, "  %s\n", d)
	}
}

// compareViews compares every package's declarative config item by item.
func (s *summary) compareViews(up, ours *view) {
	for _, name := range union(up.names(), ours.names()) {
		u, uok := up.packages[name]
		o, ook := ours.packages[name]
		switch {
		case !ook:
			s.differ("package %q: only upstream catalogd serves it", name)
			continue
		case !uok:
			s.differ("package %q: only catalogd-ts serves it", name)
			continue
		}
		s.Packages++
		s.Channels += len(u.Channels)
		s.Bundles += len(u.Bundles)
		s.Deprecations += len(u.Deprecations)
		s.Others += len(u.Others)
		ui, oi := items(u), items(o)
		for _, key := range union(keys(ui), keys(oi)) {
			a, aok := ui[key]
			b, bok := oi[key]
			switch {
			case !bok:
				s.differ("package %q: %s: only from upstream catalogd", name, key)
			case !aok:
				s.differ("package %q: %s: only from catalogd-ts", name, key)
			case a != b:
				s.differ("package %q: %s differs: %s", name, key, firstDifference(a, b))
			}
		}
	}
}

// items keys each item of a package by schema and name, its value the item's JSON with object
// keys sorted and no insignificant space: the two servers need not send the same bytes (upstream
// sends each blob as its file had it, catalogd-ts in canonical form); operator-controller
// decodes them. A bundle includes the CSV and objects declcfg derives from its properties.
func items(dc *declcfg.DeclarativeConfig) map[string]string {
	m := map[string]string{}
	put := func(key string, v any) {
		k := key
		for i := 2; ; i++ {
			if _, dup := m[k]; !dup {
				break
			}
			k = fmt.Sprintf("%s #%d", key, i)
		}
		m[k] = normalized(v)
	}
	for _, p := range dc.Packages {
		put("olm.package "+p.Name, p)
	}
	for _, c := range dc.Channels {
		put("olm.channel "+c.Name, c)
	}
	for _, b := range dc.Bundles {
		objects := make([]json.RawMessage, len(b.Objects))
		for i, o := range b.Objects {
			objects[i] = jsonOrString(o)
		}
		put("olm.bundle "+b.Name, struct {
			Bundle  declcfg.Bundle
			CSV     json.RawMessage
			Objects []json.RawMessage
		}{b, jsonOrString(b.CsvJSON), objects})
	}
	for _, d := range dc.Deprecations {
		put("olm.deprecations "+d.Package, d)
	}
	for _, o := range dc.Others {
		put(fmt.Sprintf("%s %q", o.Schema, o.Name), o)
	}
	return m
}

// normalized is v's JSON decoded and encoded again: object keys sorted, numbers as written.
func normalized(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return "undecodable: " + err.Error()
	}
	out, _ := json.Marshal(generic)
	return string(out)
}

func jsonOrString(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(s)
	return q
}

// firstDifference shows both values around the first byte where they differ.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	const before, after = 60, 80
	excerpt := func(s string) string {
		from, to := max(0, i-before), min(len(s), i+after)
		out := s[from:to]
		if from > 0 {
			out = "…" + out
		}
		if to < len(s) {
			out += "…"
		}
		return out
	}
	return fmt.Sprintf("at byte %d: upstream catalogd %s, catalogd-ts %s", i, excerpt(a), excerpt(b))
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
