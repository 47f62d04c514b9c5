import Dispatch
import HTTPServer
import ListModel
import ListStore
import Locking

/// Reading and parsing a collection's stored records, to build lists at start-up, after a
/// definition change and when a partition, language or search is materialized; records that
/// do not parse are logged and skipped.
extension ViewModelStore {
    /// Records per page of ``readAll(in:from:log:_:)``.
    static let readPageSize = 16_384

    /// Reads every record of `collection` in pages of ``readPageSize`` (in id order); each page
    /// is parsed and handed to `use` on another thread while the next is read, and its records
    /// are dropped as soon as `use` returns. Returns what `use` made of each page, in order.
    ///
    /// Reading 1,000,000 records from SQLite took a second of `make bench`'s cold start with the
    /// other core idle; now parsing and making rows (`use`) run beside it. Dropping each page's
    /// records at once matters as much: when every parsed record was kept until the lists were
    /// built, the rows were made among them, and freeing them left holes glibc could not give
    /// back (1,000,000 records, malloc_stats at ready: 506 MiB in use, 872 MiB resident; now 522 MiB
    /// resident).
    static func readAll<Made: Sendable>(in collection: String, from store: any RecordStore, log: Log,
                                        _ use: @escaping @Sendable ([JSONValue]) -> Made) throws(StoreError) -> [Made] {
        let pages = PageResults<Made>()
        let group = DispatchGroup()
        do {
            try store.forEachPage(in: collection, pageSize: readPageSize) { page throws(StoreError) in
                let n = pages.made.withLock { made in
                    made.append(nil)
                    return made.count - 1
                }
                DispatchQueue.global().async(group: group) {
                    let (values, unreadable) = parse(page[...])
                    let result = use(values)
                    pages.made.withLock { $0[n] = result }
                    if !unreadable.isEmpty { pages.unreadable.withLock { $0 += unreadable } }
                }
            }
        } catch {
            group.wait()
            throw error
        }
        group.wait()
        logUnreadable(pages.unreadable.withLock { $0 }, collection: collection, log: log)
        return pages.made.withLock { $0.map { $0! } }
    }

    /// Parses `records`; returns the values and the ids of records that are no JSON object (a
    /// damaged store: the API writes only objects).
    private static func parse(_ records: ArraySlice<StoredRecord>) -> ([JSONValue], [String]) {
        var values: [JSONValue] = []
        values.reserveCapacity(records.count)
        var unreadable: [String] = []
        var names = JSONParser.MemberNames()
        for record in records {
            guard let value = try? JSONParser.parse(record.json, names: &names), case .object = value else {
                unreadable.append(record.id)
                continue
            }
            values.append(value)
        }
        return (values, unreadable)
    }

    private static func logUnreadable(_ ids: [String], collection: String, log: Log) {
        for id in ids {
            log.error("skipping unreadable stored record (not a JSON object)", ["collection": .text(collection), "id": .text(id)])
        }
    }

    /// Parses stored records on every core (start-up cost follows the data; this halves it).
    static func parseAll(_ records: [StoredRecord], collection: String, log: Log) throws(StoreError) -> [JSONValue] {
        let parts = records.count < 10_000 ? 1 : System.coreCount * 2
        let size = (records.count + parts - 1) / max(parts, 1)
        let results = Parallelism.cores.map(parts) { part in
            parse(records[min(part * size, records.count)..<min((part + 1) * size, records.count)])
        }
        logUnreadable(results.flatMap { $0.1 }, collection: collection, log: log)
        return results.flatMap { $0.0 }
    }
}

/// What ``ViewModelStore/readAll(in:from:log:_:)`` made of each page (nil until made), and the
/// ids of the records that did not parse, filled from the threads that parse.
private final class PageResults<Made: Sendable>: Sendable {
    let made = Locked<[Made?]>([])
    let unreadable = Locked<[String]>([])
}
