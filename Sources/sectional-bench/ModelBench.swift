import ListModel
import SectionalService   // the answers' envelopes
#if canImport(Glibc)
import Glibc
#endif

/// The `model` suite: the demo "people" list at 100k and 1M rows.
enum ModelBench {
    /// The demo people definition, decoded (exits with the error when it does not decode).
    static func definition() -> ListDefinition {
        do {
            return try ListDefinitions.decode(name: "people", try JSONParser.parse(definitionJSON))
        } catch {
            print("definition error: \(error)")
            exit(1)
        }
    }

    static let definitionJSON = #"""
    {"title":"People","sections":[
      {"source":"people","groupBy":"team","type":"team","title":"{$key} ({$count})","icon":"person.3",
       "header":{"title":"{$key}","height":28},"insets":{"left":16,"right":16},"lineSpacing":8,
       "sortBy":[{"field":"name"}],
       "row":{"type":"person","title":"{name}","subtitle":"{email}","detail":"{salary|currency:USD}",
              "badge":"{startDate|date:MMM d, yyyy}","tagLength":2,"height":56,"action":"app://people/{id}"},
       "typeField":"kind","rowTypes":{"bot":{"title":"{name} (bot)","tagLength":1}},
       "accessibility":{"identifier":"person_cell","options":["section","row"]}}]}
    """#

    static let first = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Dennis", "Frances",
                        "John", "Radia", "Tim", "Sophie", "Linus", "Guido", "Anders", "Bjarne", "Katherine", "Hedy"]
    static let last = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Thompson", "Ritchie",
                       "Allen", "McCarthy", "Perlman", "Berners-Lee", "Wilson", "Torvalds", "van Rossum", "Hejlsberg"]
    static let teams = ["Design", "Engineering", "Sales", "Marketing", "Support", "Finance", "Legal", "Research",
                        "Operations", "People", "Security", "Data", "Mobile", "Platform", "Growth"]
    static let titles = ["Engineer", "Senior Engineer", "Manager", "Director", "Designer", "Analyst", "Lead"]

    static func record(_ i: Int, _ rng: inout SplitMix64) -> JSONValue {
        let f = first[Int.random(in: 0..<first.count, using: &rng)]
        let l = last[Int.random(in: 0..<last.count, using: &rng)]
        let day = Int.random(in: 1...28, using: &rng), month = Int.random(in: 1...12, using: &rng)
        let year = Int.random(in: 2005...2024, using: &rng)
        let date = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
        var o = JSONObject()
        o["id"] = .string("p\(i)")
        o["name"] = .string("\(f) \(l) \(i % 997)")
        o["email"] = .string("\(f.lowercased()).\(i)@example.com")
        o["team"] = .string(teams[Int.random(in: 0..<teams.count, using: &rng)])
        o["title"] = .string(titles[Int.random(in: 0..<titles.count, using: &rng)])
        o["salary"] = Int.random(in: 0..<4, using: &rng) == 0 ? .double(Double(Int.random(in: 4_000_000...20_000_000, using: &rng)) / 100)
                                                         : .int(Int64(Int.random(in: 40...200, using: &rng) * 1000))
        o["startDate"] = .string(date)
        o["kind"] = .string(Int.random(in: 0..<20, using: &rng) == 0 ? "bot" : "human")
        return .object(o)
    }

    static func run(arguments: [String]) {
        let small = arguments.contains("--small")
        let def: ListDefinition
        do {
            def = try ListDefinitions.decode(name: "people", try JSONParser.parse(definitionJSON))
        } catch {
            print("definition error: \(error)")
            return
        }
        let big = small ? 100_000 : 1_000_000
        var rng = SplitMix64(seed: 2024)
        let records = (0..<big).map { record($0, &rng) }
        print("sectional-bench model — demo people list (groupBy team, sortBy name, currency+date formatters, tagLength 2, accessibility ids)")

        // JSON parse throughput on record bodies.
        var bodies: [[UInt8]] = []
        for r in records.prefix(100_000) { var w = JSONWriter(); w.value(r); bodies.append(w.bytes) }
        var t0 = nowNanos()
        var parsed = 0
        for b in bodies { if (try? JSONParser.parse(b)) != nil { parsed += 1 } }
        var dt = nowNanos() - t0
        let bytes = bodies.reduce(0) { $0 + $1.count }
        print("parse     \(parsed) records (\(bytes / parsed) B avg): \(seconds(dt)) = \(Int(Double(parsed) / (Double(dt) / 1e9))) records/s")

        // Build 100k.
        let hundred = Array(records.prefix(100_000))
        t0 = nowNanos()
        let l100 = ListSnapshot.build(definition: def, records: ["people": hundred])
        dt = nowNanos() - t0
        print("build     100,000 rows: \(seconds(dt))  (\(l100.sectionCount) sections, \(l100.tagCount) tags)")

        // Build 1M with memory.
        var list = l100
        if !small {
            let rssBefore = residentKiB()
            t0 = nowNanos()
            list = ListSnapshot.build(definition: def, records: ["people": records])
            dt = nowNanos() - t0
            let rssAfter = residentKiB()
            print("build   1,000,000 rows: \(seconds(dt))  (\(list.sectionCount) sections, \(list.tagCount) tags)")
            print("memory    \(format(Double(rssAfter - rssBefore) * 1024 / Double(list.totalRowCount), digits: 0)) B/row resident (VmRSS \(rssBefore / 1024) → \(rssAfter / 1024) MiB)")
        }

        if arguments.contains("--build-only") { return }
        if let i = arguments.firstIndex(of: "--only"), i + 1 < arguments.count {
            let rounds = arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 3
            only(arguments[i + 1], rounds: rounds, list: list, big: big)
            return
        }

        var urng = SplitMix64(seed: 7)
        let usamples = upserts(&list, big: big, rng: &urng)
        print("upsert    \(usamples.count)× into \(list.totalRowCount) rows: p50 \(micros(percentile(usamples, 0.5)))  p99 \(micros(percentile(usamples, 0.99)))  max \(micros(usamples.last!))")
        let dsamples = deletes(&list, big: big, rng: &urng)
        print("delete    \(dsamples.count)×: p50 \(micros(percentile(dsamples, 0.5)))  p99 \(micros(percentile(dsamples, 0.99)))")
        let tokens = pageTokens(list)
        let (csamples, rsamples, pageBytes) = pages(list, tokens: tokens)
        print("page      50 rows (\(pageBytes) B JSON): write p50 \(micros(percentile(rsamples, 0.5))) p99 \(micros(percentile(rsamples, 0.99)));  cut (token decode + seek) p50 \(micros(percentile(csamples, 0.5))) p99 \(micros(percentile(csamples, 0.99)))")

        // Look-ups.
        let view = def.defaultView
        var lsamples: [UInt64] = []
        for _ in 0..<10_000 {
            let tag = Int.random(in: 0..<list.tagCount, using: &urng)
            t0 = nowNanos()
            let loc = list.locate(tag: tag, view: view)
            lsamples.append(nowNanos() - t0)
            precondition(loc != nil)
        }
        lsamples.sort()
        print("lookup    tag → row p50 \(micros(percentile(lsamples, 0.5)))")
    }

    /// `--only upsert|delete|page`: that phase alone, `rounds` times over the same built list
    /// (same writes or pages each round), one p50 line per round — a focused harness for
    /// profilers (`--toggle-collect='*ModelBench*upserts*'`) and for alternating runs.
    static func only(_ phase: String, rounds: Int, list built: ListSnapshot, big: Int) {
        let tokens = phase == "page" ? pageTokens(built) : []
        for round in 1...max(1, rounds) {
            var list = built
            var rng = SplitMix64(seed: 7)
            switch phase {
            case "upsert":
                let s = upserts(&list, big: big, rng: &rng)
                print("round \(round) upsert p50 \(micros(percentile(s, 0.5)))  p99 \(micros(percentile(s, 0.99)))")
            case "delete":
                let s = deletes(&list, big: big, rng: &rng)
                print("round \(round) delete p50 \(micros(percentile(s, 0.5)))  p99 \(micros(percentile(s, 0.99)))")
            case "page":
                let (c, w, _) = pages(list, tokens: tokens)
                print("round \(round) page cut p50 \(micros(percentile(c, 0.5)))  write p50 \(micros(percentile(w, 0.5)))")
            default:
                print("--only: upsert, delete or page")
                return
            }
        }
    }

    /// 10,000 upserts of random records (70% existing ids, ~half of those change team), the
    /// old snapshot kept alive as a reader would, so every write pays copy-on-write; sorted
    /// nanosecond samples.
    @inline(never)
    static func upserts(_ list: inout ListSnapshot, big: Int, rng: inout SplitMix64) -> [UInt64] {
        var samples: [UInt64] = []
        samples.reserveCapacity(10_000)
        for k in 0..<10_000 {
            let existing = Int.random(in: 0..<10, using: &rng) < 7
            let id = existing ? Int.random(in: 0..<big, using: &rng) : big + k
            let r = record(id, &rng)
            samples.append(timedWrite(&list, .upsert(r)))
        }
        samples.sort()
        return samples
    }

    /// Nanoseconds `list.applying(change)` took, with the old snapshot alive throughout (as a
    /// reader would keep it, so the write pays copy-on-write) and released only after the clock
    /// stopped. (A `keep = list` the program never reads did not do that: the optimizer may end
    /// its lifetime early, and did in some builds, which then timed the old version's release.)
    @inline(never)
    static func timedWrite(_ list: inout ListSnapshot, _ change: RecordChange) -> UInt64 {
        let old = list
        let t0 = nowNanos()
        let new = old.applying(change, collection: "people")
        let dt = nowNanos() - t0
        withExtendedLifetime(old) { list = new }
        return dt
    }

    /// 2,000 deletes of random ids (some already gone), the old snapshot kept alive; sorted samples.
    @inline(never)
    static func deletes(_ list: inout ListSnapshot, big: Int, rng: inout SplitMix64) -> [UInt64] {
        var samples: [UInt64] = []
        for _ in 0..<2_000 {
            let id = "p\(Int.random(in: 0..<big, using: &rng))"
            samples.append(timedWrite(&list, .delete(id: id)))
        }
        samples.sort()
        return samples
    }

    /// Next-page tokens to pages deep in the list (and `nil`, the first page).
    static func pageTokens(_ list: ListSnapshot) -> [String?] {
        let view = list.definition.defaultView
        let binding = PageBinding(list: "people", view: nil)
        var tokens: [String?] = [nil]
        var token: String? = nil
        for _ in 0..<200 {
            guard let p = try? list.page(size: 500, token: token, view: view, binding: binding) else { break }
            token = p.nextPageToken
            if let t = token { tokens.append(t) }
            for _ in 0..<20 { if let p2 = try? list.page(size: 500, token: token, view: view, binding: binding) { token = p2.nextPageToken } }
        }
        return tokens
    }

    /// 20,000 50-row pages at `tokens` in turn: sorted cut (token decode + seek) and write
    /// samples, and the last page's JSON size.
    @inline(never)
    static func pages(_ list: ListSnapshot, tokens: [String?]) -> (cut: [UInt64], write: [UInt64], bytes: Int) {
        let view = list.definition.defaultView
        let binding = PageBinding(list: "people", view: nil)
        var w = JSONWriter(capacity: 64 * 1024)
        var rsamples: [UInt64] = []
        var csamples: [UInt64] = []
        var pageBytes = 0
        for i in 0..<20_000 {
            let tk = tokens[i % tokens.count]
            w.bytes.removeAll(keepingCapacity: true)
            w = JSONWriter(appendingTo: w.bytes)
            let t0 = nowNanos()
            let page = try! list.page(size: 50, token: tk, view: view, binding: binding)
            let t1 = nowNanos()
            list.writePageAnswer(page, list: "people", version: 42, into: &w)
            let t2 = nowNanos()
            csamples.append(t1 - t0)
            rsamples.append(t2 - t1)
            pageBytes = w.bytes.count
        }
        rsamples.sort()
        csamples.sort()
        return (csamples, rsamples, pageBytes)
    }
}
