import Foundation
import ListModel
import ListStore

/// Loads seed files (JSON arrays of records) into collections that are still empty.
enum Seeder {
    static func seed(_ seeds: [(collection: String, path: String)], into store: RecordStore, log: Log) throws(ConfigError) {
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
            for (index, record) in records.enumerated() {
                guard let id = record["id"]?.stringValue, Names.isValid(id), record.objectValue != nil else {
                    throw ConfigError(path: "seed.\(collection)", "\(path) record \(index) needs a valid string \"id\"")
                }
                var writer = JSONWriter(capacity: 256)
                writer.value(record)
                writes.append(.upsert(collection: collection, id: id, json: writer.bytes))
            }
            do {
                for start in stride(from: 0, to: writes.count, by: 10_000) {
                    _ = try store.commit(Array(writes[start..<min(start + 10_000, writes.count)]))
                }
            } catch {
                throw ConfigError(path: "seed.\(collection)", "cannot store the seed: \(error)")
            }
            log.info("seeded", ["collection": .text(collection), "records": .number(Double(writes.count))])
        }
    }
}
