import Synchronization

/// Rendered answers of one immutable list snapshot, so a hot page or outline is written once
/// per version instead of once per request. Bounded: when full it starts over, which costs at
/// most one re-render per entry.
final class AnswerCache: Sendable {
    static let capacity = 64

    /// A rendered answer: its body and, for pages, the next page token.
    struct Answer: Sendable {
        let body: [UInt8]
        var nextPageToken: String? = nil
    }

    private let answers = Mutex<[String: Answer]>([:])

    /// The cached answer for `key`, or `render()`'s, remembered.
    func answer<Failure: Error>(for key: String, render: () throws(Failure) -> Answer) throws(Failure) -> Answer {
        if let hit = answers.withLock({ $0[key] }) { return hit }
        let answer = try render()
        answers.withLock { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[key] = answer
        }
        return answer
    }
}
