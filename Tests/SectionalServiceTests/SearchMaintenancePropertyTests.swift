import ListStore
import TestSupport
import XCTest
@testable import ListModel
@testable import SectionalService

/// Resident search results, moved by random writes that add, change and delete matching and
/// other records, equal a fresh build of the records their query matches; so does every new
/// query made after the writes (from the search corpus and the list's rows, moved by the same
/// writes).
final class SearchMaintenancePropertyTests: XCTestCase {
    static let sections = #"""
      {"key":"pinned","type":"pinned","title":"Pinned","rows":[{"id":"me","type":"profile","title":"Me"}]},
      {"source":"people","groupBy":"team","type":"team","title":"{$key} ({$count})","sortBy":[{"field":"name"}],
       "row":{"type":"person","title":"{name}","subtitle":"{email}"}}
    """#

    /// `people` has no duplicate rows (a new result is taken from its rows); in `leads` a lead
    /// is in two sections, so its results are built from the matching records.
    static func definitions() throws -> [ListDefinition] {
        try ListDefinitions.decode(JSONParser.parse(#"""
        {"people":{"search":{"fields":["name","email"]},"filters":["team"],"sections":[\#(sections)]},
         "leads":{"search":{"fields":["name","email"]},"filters":["team"],"sections":[\#(sections),
           {"source":"people","key":"leads","type":"lead","title":"Leads","where":{"lead":true},"row":{"type":"lead","title":"{name}"}}]}}
        """#))
    }

    func testResidentAndNewResultsEqualFreshBuildsThroughRandomWrites() throws {
        var random = SplitMix64.replayable("SearchMaintenancePropertyTests")
        let store = try ViewModelStore(definitions: try Self.definitions(), store: MemoryStore(), log: Log(level: .error))
        let names = ["Ann", "Anna", "Bernard", "Émile", "Zoë", "Ellen", "Marco", "Sonia", "Kenneth", "Tina"]
        let teams = ["Design", "Ops", "Sales"]
        var records: [String: JSONObject] = [:]
        func randomRecord(_ id: String) -> JSONObject {
            var o = JSONObject()
            o["id"] = .string(id)
            o["name"] = .string(names.randomElement(using: &random)! + " " + names.randomElement(using: &random)!)
            o["email"] = .string("\(id)@example.com")
            o["team"] = .string(teams.randomElement(using: &random)!)
            if random.next() % 4 == 0 { o["lead"] = true }
            return o
        }
        func write(_ count: Int) throws {
            var writes: [ViewModelStore.Write] = []
            for _ in 0..<count {
                let id = "p\(random.next() % 40)"
                if random.next() % 4 == 0 {
                    writes.append(.delete(collection: "people", id: id))
                    records[id] = nil
                } else {
                    let record = randomRecord(id)
                    records[id] = record
                    writes.append(.upsert(collection: "people", record: IncomingRecord(id: id, object: record)))
                }
            }
            try commit(store, writes)
        }
        let searchFields = [FieldPath("name"), FieldPath("email")].compactMap { $0 }
        let team = try XCTUnwrap(FieldPath("team"))
        func query(_ text: String?, team value: String? = nil) -> ListQuery {
            ListQuery(text: text, filters: value.map { [ListQuery.Filter(field: team, value: $0)] } ?? [], searchFields: searchFields)
        }
        let resident = [query("an"), query("EMILE"), query("e", team: "Ops"), query(nil, team: "Design"), query("zz"), query("p1")]
        try write(30)
        for list in ["people", "leads"] {
            for query in resident { _ = try store.searched(try XCTUnwrap(store.list(list)), query: query) }
        }
        for step in 0..<150 {
            // Now and then a group large enough for the corpus to move beside the list
            // (``ViewModelStore/concurrentCorpusWrites``).
            try write(step % 25 == 24 ? ViewModelStore.concurrentCorpusWrites + 44 : Int(random.next() % 3) + 1)
            let letters = Array("aeinor")
            let new = query(String((0...(random.next() % 2)).map { _ in letters[Int(random.next() % 6)] }))
            for list in ["people", "leads"] {
                let base = try XCTUnwrap(store.list(list))
                let all = ListSnapshot.build(definition: base.definition, records: ["people": records.values.map { JSONValue.object($0) }])
                XCTAssertEqual(Self.text(base.snapshot), Self.text(all), "step \(step), \(list): the list itself")
                for query in resident + [new] {
                    let key = MaterializationKey(list: list, partition: nil, query: query)
                    if query != new { XCTAssertNotNil(store.cache.peek(key), "step \(step): \(query.canonical) is resident") }
                    let result = try XCTUnwrap(store.searched(base, query: query))
                    let matching = records.values.filter { query.matches(.object($0)) }.map { JSONValue.object($0) }
                    let fresh = ListSnapshot.build(definition: base.definition, records: ["people": matching]).asSearchResult()
                    XCTAssertEqual(Self.text(result.snapshot), Self.text(fresh), "step \(step), \(list), \(query.canonical)")
                    XCTAssertEqual(result.version, base.version, "step \(step), \(list), \(query.canonical)")
                }
            }
        }
    }

    /// Outline, every row and the duplicate count, as JSON text.
    private static func text(_ snapshot: ListSnapshot) -> String {
        var w = JSONWriter()
        w.beginArray()
        snapshot.writeOutlineAnswer(list: "l", version: 1, view: ViewState(), into: &w)
        snapshot.writeFullContents(into: &w)
        w.int(snapshot.duplicateRowCount)
        w.endArray()
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
