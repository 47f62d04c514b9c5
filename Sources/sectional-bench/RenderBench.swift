#if canImport(Glibc)
import Glibc
#endif
import ListModel
import SectionalService   // the answers' envelopes

/// The `render` suite: what the HTTP server does per `GET …/rows?pageSize=50` — cut a 50-row page
/// from a shared snapshot and write its JSON answer — on the demo people list (100,000 rows).
///
/// Single thread: p50/p99 of cut + write, for one page again and again (its rows stay in the
/// caches) and for every page by token in random order (their rows mostly do not). Two threads:
/// both render the same page from one shared snapshot in a loop for `--seconds` (default 2);
/// pages/s is the sum of both threads. Shared reference counts (rows, key arrays, definition
/// fields) bounce between the cores there, which the single-thread figure does not show.
enum RenderBench {
    final class Shared: @unchecked Sendable {
        let list: ListSnapshot
        let token: String?
        let view: ViewState
        let binding: PageBinding
        let seconds: Double
        /// One slot per thread (plain memory: no shared array to mutate from two threads).
        let pages = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        init(list: ListSnapshot, token: String?, view: ViewState, binding: PageBinding, seconds: Double) {
            self.list = list; self.token = token; self.view = view; self.binding = binding; self.seconds = seconds
            pages.initialize(repeating: 0, count: 2)
        }
    }

    static func run(arguments: [String]) {
        var rows = 100_000
        var secs = 2.0
        var threads = 2
        let people = arguments.contains("--people")
        var k = 0
        while k < arguments.count {
            switch arguments[k] {
            case "--rows": k += 1; rows = Int(arguments[k]) ?? rows
            case "--seconds": k += 1; secs = Double(arguments[k]) ?? secs
            case "--threads": k += 1; threads = max(1, min(2, Int(arguments[k]) ?? threads))
            default: break
            }
            k += 1
        }
        let def = try! ListDefinitions.decode(name: "people", try! JSONParser.parse(people ? ModelBench.definitionJSON : contactsJSON))
        var rng = SplitMix64(seed: 2024)
        let records = (0..<rows).map { ModelBench.record($0, &rng) }
        let list = ListSnapshot.build(definition: def, records: ["people": records])
        let view = def.defaultView
        let binding = PageBinding(list: "people", view: nil)
        // A token about a third into the list (a page in the middle of a section).
        var token: String? = nil
        for _ in 0..<(rows / 3 / 500) {
            token = try! list.page(size: 500, token: token, view: view, binding: binding).nextPageToken
        }
        print("sectional-bench render — \(people ? "model bench people" : "demo contacts") list, \(list.totalRowCount) rows in \(list.sectionCount) sections; 50-row page (cut + write)")

        // Single thread: 20,000 pages cut and written, each at the token `pick` gives; p50/p99
        // and the last answer's size.
        var w = JSONWriter(capacity: 64 * 1024)
        func timed(_ pick: () -> String?) -> (summary: String, bytes: Int) {
            var samples: [UInt64] = []
            samples.reserveCapacity(20_000)
            for _ in 0..<20_000 {
                let at = pick()
                w.bytes.removeAll(keepingCapacity: true)
                w = JSONWriter(appendingTo: w.bytes)
                let t0 = nowNanos()
                let page = try! list.page(size: 50, token: at, view: view, binding: binding)
                list.writePageAnswer(page, list: "people", version: 42, into: &w)
                samples.append(nowNanos() - t0)
            }
            samples.sort()
            return ("p50 \(micros(percentile(samples, 0.5)))  p99 \(micros(percentile(samples, 0.99)))", w.bytes.count)
        }
        let hot = timed { token }
        print("1 thread  page (\(hot.bytes) B): \(hot.summary)")

        // Pages by token in random order, as `make bench`'s random pages: their rows are cold in
        // the caches (they sit far apart in memory), where the page above is hot.
        var tokens: [String] = []
        var next: String? = nil
        repeat {
            next = try! list.page(size: 50, token: next, view: view, binding: binding).nextPageToken
            if let next { tokens.append(next) }
        } while next != nil
        let cold = timed { tokens[Int(rng.next() % UInt64(tokens.count))] }
        print("1 thread  random pages by token (of \(tokens.count)): \(cold.summary)")

        // N threads on one shared snapshot.
        let shared = Shared(list: list, token: token, view: view, binding: binding, seconds: secs)
        var tids: [pthread_t] = []
        let t0 = nowNanos()
        for i in 0..<threads {
            let box = Unmanaged.passRetained(Box(shared: shared, slot: i)).toOpaque()
            var tid = pthread_t()
            pthread_create(&tid, nil, { p in
                let b = Unmanaged<Box>.fromOpaque(p!).takeRetainedValue()
                RenderBench.loop(b.shared, slot: b.slot)
                return nil
            }, box)
            tids.append(tid)
        }
        for t in tids { pthread_join(t, nil) }
        let dt = Double(nowNanos() - t0) / 1e9
        let counts = (0..<threads).map { shared.pages[$0] }
        let total = counts.reduce(0, +)
        print("\(threads) threads page loop \(format(dt, digits: 2)) s: \(Int(Double(total) / dt)) pages/s total (\(counts.map(String.init).joined(separator: " + ")))")
    }

    /// The demo configuration's `contacts` list (what `GET /v1/lists/contacts/rows` serves):
    /// explicit section order, a section hidden by default, bot rows with another template.
    static let contactsJSON = #"""
    {"title":"Contacts","sections":[
      {"source":"people","groupBy":"team","type":"team","title":"{$key} ({$count})","icon":"person.3",
       "sectionOrder":["Engineering","Design"],"hiddenByDefault":["Archived"],
       "sortBy":[{"field":"name","order":"asc"}],
       "row":{"type":"person","title":"{name}","subtitle":"{title} · {email}","detail":"{salary|currency:USD}",
              "icon":"{avatar}","badge":"{unread}","tagLength":2,"height":56,"action":"app://people/{id}"},
       "typeField":"kind",
       "rowTypes":{"bot":{"title":"{name} (bot)","subtitle":"since {startDate|date:MMM d, yyyy}","detail":"","tagLength":1,"height":44}},
       "accessibility":{"identifier":"contact_cell","options":["section","row"]}}]}
    """#

    final class Box { let shared: Shared; let slot: Int; init(shared: Shared, slot: Int) { self.shared = shared; self.slot = slot } }

    static func loop(_ s: Shared, slot: Int) {
        let list = s.list
        var w = JSONWriter(capacity: 64 * 1024)
        let end = nowNanos() + UInt64(s.seconds * 1e9)
        var n = 0
        while true {
            for _ in 0..<64 {
                w.bytes.removeAll(keepingCapacity: true)
                w = JSONWriter(appendingTo: w.bytes)
                let page = try! list.page(size: 50, token: s.token, view: s.view, binding: s.binding)
                list.writePageAnswer(page, list: "people", version: 42, into: &w)
                n += 1
            }
            if nowNanos() >= end { break }
        }
        s.pages[slot] = n
    }
}
