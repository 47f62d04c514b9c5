import Foundation
import ListModel
import ListStore

/// Loads seed files (JSON arrays of records) into collections that are still empty.
///
/// A collection's seed is one commit, all or nothing: a start that stops part-way (a crash,
/// `kill -9`, a full disk) leaves the collection empty, so the next start seeds it whole. Seeded
/// in parts, the first part would make the collection non-empty and the rest would never come.
/// The whole seed is in memory already (parsed, then encoded), so one transaction costs no more
/// memory; on SQLite its write-ahead log grows to about the seed's size until the next checkpoint.
///
/// An id the file holds more than once is one record, its last (as in a batch); the log's
/// `records` counts the records stored, and a warning names the repeated ids.
enum Seeder {
    /// Seeds every empty collection; returns what each seed stored (none for a collection that
    /// had records already).
    @discardableResult
    static func seed(_ seeds: [(collection: String, path: String)], into store: RecordStore, log: Log) throws(ConfigError) -> [SeedSummary] {
        var summaries: [SeedSummary] = []
        for (collection, path) in seeds {
            let empty: Bool
            do {
                empty = try store.records(in: collection, after: nil, limit: 1).isEmpty
            } catch {
                throw ConfigError(path: "seed.\(collection)", "cannot read the store: \(error)")
            }
            guard empty else { continue }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigError(path: "seed.\(collection)", "cannot read seed file \(path)")
            }
            let records: [JSONValue]
            do {
                guard let array = try JSONParser.parse(Array(data)).arrayValue else {
                    throw ConfigError(path: "seed.\(collection)", "\(path) must hold a JSON array of records")
                }
                records = array
            } catch let error as ConfigError {
                throw error
            } catch {
                throw ConfigError(path: "seed.\(collection)", "\(path) is not valid JSON: \(error)")
            }
            var writes: [RecordWrite] = []
            var ids = Set<CodePointKey>(minimumCapacity: records.count)
            var repeated: [String] = []
            var repeatedSet = Set<CodePointKey>()
            for (index, record) in records.enumerated() {
                guard let id = record["id"]?.stringValue, Names.isValid(id), record.objectValue != nil else {
                    throw ConfigError(path: "seed.\(collection)", "\(path) record \(index) needs a valid string \"id\"")
                }
                let key = CodePointKey(id)
                if !ids.insert(key).inserted, repeatedSet.insert(key).inserted { repeated.append(id) }
                var writer = JSONWriter(capacity: 256)
                writer.value(record)
                writes.append(.upsert(collection: collection, id: id, json: writer.bytes))
            }
            do {
                if !writes.isEmpty { _ = try store.commit(writes) }
            } catch {
                throw ConfigError(path: "seed.\(collection)", "cannot store the seed: \(error)")
            }
            let summary = SeedSummary(collection: collection, path: path, records: ids.count, repeatedIDs: repeated)
            log.info("seeded", ["collection": .text(collection), "records": .number(Double(summary.records))])
            if let warning = summary.warning {
                log.warn("seed repeats record ids", ["collection": .text(collection), "ids": .number(Double(repeated.count)),
                                                     "detail": .text(warning)])
            }
            summaries.append(summary)
        }
        return summaries
    }
}
