import Locking
import Synchronization

/// The rendered answers held by every resident partition, language and search result, together:
/// their bytes count against `scopes.maxResidentRows` at ``bytesPerRow`` a row, beside the rows
/// and entries themselves. Owned by the ``MaterializationCache``; each resident state's
/// ``AnswerCache`` adds to it as it keeps, evicts and grows answers, and takes its share out at
/// once when its materialization leaves memory (the state itself is freed later, off the path).
///
/// Cost: an atomic add per change of an answer cache; past the budget, a trim (the cache's lock
/// and a sort of its entries) once per hundredth of the budget.
final class AnswerTally: Sendable {
    /// What a row of a list costs in memory, to turn answers' bytes into rows: 543–554 bytes a
    /// row of a 1,000,000-row list in `make bench`.
    static let bytesPerRow = 550

    private let bytes = Atomic<Int>(0)
    private let entries = Atomic<Int>(0)
    /// The rows the budget holds besides answers (rows and entries), as the cache last published.
    private let otherRows = Atomic<Int>(0)
    private let limit: Int
    /// Brings the budget back within bounds; set once by the owner.
    private let trim = Locked<(@Sendable () -> Void)?>(nil)

    /// A tally for a budget of `limit` rows.
    init(limit: Int) { self.limit = limit }

    /// Adds `bytes` and `entries`; whether the budget is then past its limit (call ``overflow()``
    /// once the caller's locks are released).
    func add(bytes: Int, entries: Int) -> Bool {
        let total = self.bytes.wrappingAdd(bytes, ordering: .relaxed).newValue
        if entries != 0 { self.entries.wrappingAdd(entries, ordering: .relaxed) }
        return bytes > 0 && otherRows.load(ordering: .relaxed) + total / Self.bytesPerRow > limit
    }

    /// The answers' bytes as rows.
    var rows: Int { bytes.load(ordering: .relaxed) / Self.bytesPerRow }

    /// Answers counted and their bytes.
    var usage: (entries: Int, bytes: Int) { (entries.load(ordering: .relaxed), bytes.load(ordering: .relaxed)) }

    /// The rows the budget holds besides answers, for ``add(bytes:entries:)``'s verdict.
    func setOtherRows(_ rows: Int) { otherRows.store(rows, ordering: .relaxed) }

    /// Has `trim` run when answers take the budget past its limit.
    func onOverflow(_ trim: @escaping @Sendable () -> Void) { self.trim.withLock { $0 = trim } }

    /// The budget is past its limit: trims it.
    func overflow() { trim.withLock { $0 }?() }
}
