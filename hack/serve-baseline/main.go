// serve-baseline: the bench's stand-in for upstream catalogd v1.5.1's content server
// (operator-controller internal/catalogd/storage/localdir.go), so that bench/serve.ts measures
// ours against it in the same run without a cluster. It serves the same revision files:
//
//	GET|HEAD /catalogs/<catalog>/api/v1/all    http.ServeContent of <dir>/all.jsonl
//	GET|HEAD /catalogs/<catalog>/api/v1/metas  upstream's index: {by_schema,by_package,by_name}
//	                                           of [offset,length] sections, decoded from its JSON
//	                                           per request as upstream does, sections intersected,
//	                                           sorted and copied with io.MultiReader
//
// behind klauspost's gzhttp.GzipHandler (upstream's serverutil), over HTTP or TLS.
//
//	serve-baseline -addr 127.0.0.1:0 [-tls-cert F -tls-key F] name=REVISION_DIR ...
//
// prints `listening <url>` once it accepts connections.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

type section struct{ offset, length int64 }

func (s section) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`[%d,%d]`, s.offset, s.length)), nil
}

func (s *section) UnmarshalJSON(b []byte) error {
	var v [2]int64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	s.offset, s.length = v[0], v[1]
	return nil
}

type index struct {
	BySchema  map[string][]section `json:"by_schema"`
	ByPackage map[string][]section `json:"by_package"`
	ByName    map[string][]section `json:"by_name"`
}

type catalog struct {
	file      string
	indexJSON []byte
}

// buildIndex reads all.jsonl once, as upstream builds its index while storing the catalog.
func buildIndex(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx := index{map[string][]section{}, map[string][]section{}, map[string][]section{}}
	r := bufio.NewReaderSize(f, 1<<20)
	var offset int64
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var m struct{ Schema, Package, Name string }
			if err := json.Unmarshal(line, &m); err != nil {
				return nil, err
			}
			s := section{offset, int64(len(line))}
			offset += s.length
			if m.Schema != "" {
				idx.BySchema[m.Schema] = append(idx.BySchema[m.Schema], s)
			}
			if m.Package != "" {
				idx.ByPackage[m.Package] = append(idx.ByPackage[m.Package], s)
			}
			if m.Name != "" {
				idx.ByName[m.Name] = append(idx.ByName[m.Name], s)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return json.Marshal(idx)
}

func intersect(set map[section]bool, with []section) map[section]bool {
	keep := map[section]bool{}
	for _, s := range with {
		if set[s] {
			keep[s] = true
		}
	}
	return keep
}

func (c *catalog) metas(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for p := range q {
		if p != "schema" && p != "package" && p != "name" {
			http.Error(w, "400 Bad Request", http.StatusBadRequest)
			return
		}
	}
	f, err := os.Open(c.file)
	if err != nil {
		http.Error(w, "500", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	w.Header().Add("Content-Type", "application/jsonl")
	schema, pkg, name := q.Get("schema"), q.Get("package"), q.Get("name")
	if schema == "" && pkg == "" && name == "" {
		if r.Method != http.MethodHead {
			_, _ = io.Copy(w, f)
		}
		return
	}
	var idx index
	if err := json.Unmarshal(c.indexJSON, &idx); err != nil {
		http.Error(w, "500", http.StatusInternalServerError)
		return
	}
	set := map[section]bool{}
	if schema == "" {
		for _, ss := range idx.BySchema {
			for _, s := range ss {
				set[s] = true
			}
		}
	} else {
		for _, s := range idx.BySchema[schema] {
			set[s] = true
		}
	}
	if pkg != "" {
		set = intersect(set, idx.ByPackage[pkg])
	}
	if name != "" {
		set = intersect(set, idx.ByName[name])
	}
	sections := make([]section, 0, len(set))
	for s := range set {
		sections = append(sections, s)
	}
	slices.SortFunc(sections, func(a, b section) int { return cmp.Compare(a.offset, b.offset) })
	readers := make([]io.Reader, 0, len(sections))
	for _, s := range sections {
		readers = append(readers, io.NewSectionReader(f, s.offset, s.length))
	}
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, io.MultiReader(readers...))
	}
}

func (c *catalog) all(w http.ResponseWriter, r *http.Request) {
	f, err := os.Open(c.file)
	if err != nil {
		http.Error(w, "500", http.StatusInternalServerError)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		http.Error(w, "500", http.StatusInternalServerError)
		return
	}
	w.Header().Add("Content-Type", "application/jsonl")
	http.ServeContent(w, r, "", st.ModTime(), f)
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	cert := flag.String("tls-cert", "", "PEM certificate (TLS when set)")
	key := flag.String("tls-key", "", "PEM key")
	flag.Parse()
	mux := http.NewServeMux()
	for _, arg := range flag.Args() {
		name, dir, ok := strings.Cut(arg, "=")
		if !ok {
			log.Fatalf("want name=DIR, got %q", arg)
		}
		c := &catalog{file: filepath.Join(dir, "all.jsonl")}
		idx, err := buildIndex(c.file)
		if err != nil {
			log.Fatal(err)
		}
		c.indexJSON = idx
		mux.HandleFunc("/catalogs/"+name+"/api/v1/all", c.all)
		mux.HandleFunc("/catalogs/"+name+"/api/v1/metas", c.metas)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	scheme := "http"
	if *cert != "" {
		scheme = "https"
	}
	fmt.Printf("listening %s://%s\n", scheme, l.Addr())
	srv := &http.Server{Handler: gzhttp.GzipHandler(mux)}
	if *cert != "" {
		err = srv.ServeTLS(l, *cert, *key)
	} else {
		err = srv.Serve(l)
	}
	log.Fatal(err)
}
