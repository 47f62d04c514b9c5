// Peer baseline (c): the backend a Go team would write by hand. net/http and encoding/json from
// the standard library, the same people in memory, grouped and sorted like the demo's `contacts`,
// and every answer built per request (no cache), like Benchmarks/node-baseline.mjs.
// Usage: go-peer PORT PEOPLE.json
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
)

type person struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Email  string   `json:"email"`
	Team   string   `json:"team"`
	Title  string   `json:"title"`
	Salary float64  `json:"salary"`
	Avatar string   `json:"avatar"`
	Unread *float64 `json:"unread"`
	tag    tag
}

type tag struct {
	Location int `json:"location"`
	Length   int `json:"length"`
}

type indexPath struct {
	Section int `json:"section"`
	Row     int `json:"row"`
}

type row struct {
	ID                      string    `json:"id"`
	Type                    string    `json:"type"`
	IndexPath               indexPath `json:"indexPath"`
	Tag                     tag       `json:"tag"`
	Title                   string    `json:"title"`
	Subtitle                string    `json:"subtitle"`
	Detail                  string    `json:"detail,omitempty"`
	Icon                    string    `json:"icon"`
	Badge                   string    `json:"badge"`
	Height                  int       `json:"height"`
	AccessibilityIdentifier string    `json:"accessibilityIdentifier"`
	Action                  string    `json:"action"`
}

type insets struct {
	Top    int `json:"top"`
	Left   int `json:"left"`
	Bottom int `json:"bottom"`
	Right  int `json:"right"`
}

type sectionInfo struct {
	Index         int     `json:"index"`
	Key           string  `json:"key"`
	Type          string  `json:"type"`
	Title         string  `json:"title"`
	Icon          string  `json:"icon"`
	Header        *string `json:"header"`
	Footer        *string `json:"footer"`
	Insets        insets  `json:"insets"`
	LineSpacing   int     `json:"lineSpacing"`
	Hidden        bool    `json:"hidden"`
	RowCount      int     `json:"rowCount"`
	TotalRowCount int     `json:"totalRowCount"`
	FirstTag      int     `json:"firstTag"`
}

type sectionRows struct {
	sectionInfo
	RowOffset int   `json:"rowOffset"`
	Rows      []row `json:"rows"`
}

type section struct {
	key      string
	records  []*person
	firstTag int
}

var (
	sections []*section
	byID     = map[string][2]int{}
	byTag    [][2]int
	total    int
)

var first = map[string]int{"Engineering": 0, "Design": 1}
var hiddenByDefault = map[string]bool{"Archived": true}

// currency formats like Intl.NumberFormat("en-US", {style: "currency", currency: "USD"}).
func currency(value float64) string {
	cents := strconv.FormatFloat(value, 'f', 2, 64)
	whole, fraction := cents[:len(cents)-3], cents[len(cents)-2:]
	var b strings.Builder
	b.WriteByte('$')
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	b.WriteByte('.')
	b.WriteString(fraction)
	return b.String()
}

func makeRow(p *person, si, ri int) row {
	bot := p.Kind == "bot"
	r := row{ID: p.ID, Type: "person", IndexPath: indexPath{si, ri}, Tag: p.tag, Title: p.Name,
		Subtitle: p.Title + " · " + p.Email, Icon: p.Avatar, Height: 56,
		AccessibilityIdentifier: fmt.Sprintf("contact_cell_%d_%d", si, ri), Action: "app://people/" + p.ID}
	if bot {
		r.Type, r.Title, r.Height = "bot", p.Name+" (bot)", 44
	} else {
		r.Detail = currency(p.Salary)
	}
	if p.Unread != nil {
		r.Badge = strconv.FormatFloat(*p.Unread, 'f', -1, 64)
	} else {
		r.Badge = "undefined" // what the Node peer writes for a missing count
	}
	return r
}

func info(s *section, si int) sectionInfo {
	hidden := hiddenByDefault[s.key]
	rowCount := len(s.records)
	if hidden {
		rowCount = 0
	}
	return sectionInfo{Index: si, Key: s.key, Type: "team", Title: fmt.Sprintf("%s (%d)", s.key, len(s.records)),
		Icon: "person.3", Hidden: hidden, RowCount: rowCount, TotalRowCount: len(s.records), FirstTag: s.firstTag}
}

func send(w http.ResponseWriter, status int, value any) {
	body, err := json.Marshal(value)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func query(r *http.Request, name string, fallback int) int {
	if v, err := strconv.Atoi(r.URL.Query().Get(name)); err == nil {
		return v
	}
	return fallback
}

func handle(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	notFound := map[string]string{"type": "/problems/not-found"}
	switch {
	case r.URL.Path == "/outline":
		out := make([]sectionInfo, len(sections))
		for si, s := range sections {
			out[si] = info(s, si)
		}
		send(w, 200, map[string]any{"list": "contacts", "version": 1, "sections": out})
	case r.URL.Path == "/page":
		size := query(r, "pageSize", 50)
		out := []sectionRows{}
		left := size
		for si := 0; si < len(sections) && left > 0; si++ {
			s := sections[si]
			i := info(s, si)
			rows := []row{}
			if !i.Hidden {
				for ri := 0; ri < len(s.records) && ri < left; ri++ {
					rows = append(rows, makeRow(s.records[ri], si, ri))
				}
				left -= len(rows)
			}
			out = append(out, sectionRows{i, 0, rows})
		}
		send(w, 200, map[string]any{"list": "contacts", "version": 1, "sections": out, "nextPageToken": "x",
			"itemsBefore": 0, "itemsAfter": total - size})
	case parts[0] == "sections" && len(parts) > 1:
		si, err := strconv.Atoi(parts[1])
		if err != nil || si < 0 || si >= len(sections) {
			send(w, 404, notFound)
			return
		}
		s := sections[si]
		start, count := query(r, "start", 0), query(r, "count", 50)
		rows := []row{}
		for ri := start; ri >= 0 && ri < len(s.records) && ri < start+count; ri++ {
			rows = append(rows, makeRow(s.records[ri], si, ri))
		}
		send(w, 200, map[string]any{"list": "contacts", "version": 1, "section": sectionRows{info(s, si), start, rows}})
	case (parts[0] == "tags" || parts[0] == "rows") && len(parts) > 1:
		var at [2]int
		var ok bool
		if parts[0] == "tags" {
			t, err := strconv.Atoi(parts[1])
			if ok = err == nil && t >= 0 && t < len(byTag); ok {
				at = byTag[t]
			}
		} else {
			at, ok = byID[parts[1]]
		}
		if !ok {
			send(w, 404, notFound)
			return
		}
		si, ri := at[0], at[1]
		send(w, 200, map[string]any{"list": "contacts", "version": 1, "indexPath": indexPath{si, ri},
			"hidden": hiddenByDefault[sections[si].key], "row": makeRow(sections[si].records[ri], si, ri)})
	default:
		send(w, 404, notFound)
	}
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: go-peer PORT PEOPLE.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	var people []*person
	if err := json.Unmarshal(data, &people); err != nil {
		panic(err)
	}
	total = len(people)
	// Sections by team: explicit keys first, the rest ascending; rows by name, then id.
	groups := map[string]*section{}
	for _, p := range people {
		if groups[p.Team] == nil {
			groups[p.Team] = &section{key: p.Team}
			sections = append(sections, groups[p.Team])
		}
		groups[p.Team].records = append(groups[p.Team].records, p)
	}
	rank := func(key string) int {
		if r, ok := first[key]; ok {
			return r
		}
		return 99
	}
	sort.SliceStable(sections, func(a, b int) bool {
		ra, rb := rank(sections[a].key), rank(sections[b].key)
		if ra != rb {
			return ra < rb
		}
		return sections[a].key < sections[b].key
	})
	next := 0
	for si, s := range sections {
		sort.Slice(s.records, func(a, b int) bool {
			if s.records[a].Name != s.records[b].Name {
				return s.records[a].Name < s.records[b].Name
			}
			return s.records[a].ID < s.records[b].ID
		})
		s.firstTag = next
		for ri, p := range s.records {
			length := 2
			if p.Kind == "bot" {
				length = 1
			}
			p.tag = tag{next, length}
			byID[p.ID] = [2]int{si, ri}
			for i := 0; i < length; i++ {
				byTag = append(byTag, [2]int{si, ri})
			}
			next += length
		}
	}
	server := &http.Server{Addr: "127.0.0.1:" + os.Args[1], Handler: http.HandlerFunc(handle)}
	if err := server.ListenAndServe(); err != nil {
		panic(err)
	}
}
