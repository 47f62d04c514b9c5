import Foundation
import Locking
import Synchronization
import TestSupport

/// Record writes sent by several threads to a real server, each answer filed: acknowledged
/// (2xx), refused for the store (`503 storage-unavailable` with `Retry-After`), or unexpected
/// (anything else, which a test fails on).
final class WriteStream: Sendable {
    struct Ledger {
        var acknowledged: [String] = []
        var refused: [String] = []
        var unexpected: [String] = []
    }

    private let ledger = Locked(Ledger())
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Int>(0)
    let port: Int
    let prefix: String
    /// Sent with every write (e.g. the service token).
    let headers: [(String, String)]

    init(port: Int, prefix: String, headers: [(String, String)] = []) {
        self.port = port
        self.prefix = prefix
        self.headers = headers
    }

    /// What was answered so far.
    var answers: Ledger { ledger.withLock { $0 } }

    /// The body written for record `id`: a name to check it by, padded so the disk fills sooner.
    static func body(_ id: String) -> String {
        "{\"name\":\"\(id)\",\"team\":\"T\(id.utf8.count % 5)\",\"email\":\"\(String(repeating: "x", count: 300))\"}"
    }

    /// Starts `threads` writers; each writes new records until ``stop()`` or `limit` writes.
    func start(threads: Int, limit: Int = .max) {
        for thread in 0..<threads {
            running.add(1, ordering: .relaxed)
            Thread { [self] in
                defer { running.subtract(1, ordering: .releasing) }
                var client = try? HTTPTestClient(port: port)
                var n = 0
                while !stopping.load(ordering: .relaxed), n < limit {
                    let id = "\(prefix)-\(thread)-\(n)"
                    n += 1
                    file(id, answer: write(id, client: &client))
                }
            }.start()
        }
    }

    /// Asks every writer to stop and waits (up to 30 s) until all have; false on time-out.
    func stop() -> Bool {
        stopping.store(true, ordering: .relaxed)
        return eventually(within: 30) { running.load(ordering: .acquiring) == 0 }
    }

    /// Waits (up to 60 s) until all writers are done; false on time-out.
    func finish() -> Bool { eventually(within: 60) { running.load(ordering: .acquiring) == 0 } }

    /// PUTs record `id`; after a broken connection, once more on a new one (a record written
    /// twice is still one record, so a lost answer cannot hide a write).
    private func write(_ id: String, client: inout HTTPTestClient?) -> HTTPTestClient.Answer? {
        for _ in 0..<2 {
            if client == nil { client = try? HTTPTestClient(port: port) }
            if let answer = try? client?.request("PUT", "/v1/collections/people/records/\(id)",
                                                 headers: headers + [("Content-Type", "application/json")], body: Array(Self.body(id).utf8)) {
                return answer
            }
            client = nil
        }
        return nil
    }

    private func file(_ id: String, answer: HTTPTestClient.Answer?) {
        ledger.withLock { ledger in
            guard let answer else { return ledger.unexpected.append("\(id): no answer") }
            switch answer.status {
            case 200, 201: ledger.acknowledged.append(id)
            case 503 where answer.slug == "storage-unavailable" && answer.header("Retry-After") != nil: ledger.refused.append(id)
            default: ledger.unexpected.append("\(id): \(answer.status) \(answer.text.prefix(300))")
            }
        }
    }
}
