import Dispatch
import HTTPServer
import ListModel
import Locking

/// The edits a commit will apply to the lists, made on another thread while the store commits
/// it (see ``ViewModelStore/editAhead(_:)``): a large batch's model work overlaps the commit's
/// disk wait instead of starting after it.
///
/// An edit made ahead has no effect until the writer takes it (``take(_:from:)``) and appends
/// it to the list's history, and is taken only from the history it was made from (a definition
/// changed since makes a new one) while that is still at the version the edit started from;
/// otherwise — another instance's versions came first, the commit failed — it is dropped and
/// the writer edits as it would have.
final class EditsAhead: Sendable {
    /// An edit and the history it was made from.
    typealias Made = (history: ListHistory, edit: ListEdit)

    private let done = DispatchGroup()
    private let edits = Locked<[MaterializationKey: Made]>([:])

    /// Where edits are made: a queue of its own, not a global one. The writer waits for it, and
    /// a serial queue always gets a thread, where a global queue's work waits for one of as many
    /// threads as there are cores: when they are all blocked, libdispatch on Linux adds one only
    /// when its monitor looks, once a second.
    private static let queue = DispatchQueue(label: "sectional.edits-ahead", qos: .userInitiated)

    /// Starts `make` on ``queue``; its edits are kept for ``take(_:from:)``.
    init(_ make: @escaping @Sendable () -> [MaterializationKey: Made]) {
        Self.queue.async(group: done) { [self] in
            ThreadPinning.freeCallingThread()
            let made = make()
            edits.withLock { $0 = made }
        }
    }

    /// The edit made for `key`, once made, if it was made from `history` and starts from its
    /// latest version.
    func take(_ key: MaterializationKey, from history: ListHistory) -> ListEdit? {
        done.wait()
        guard let made = edits.withLock({ $0.removeValue(forKey: key) }), made.history === history,
              made.edit.baseVersion == history.latestVersion else { return nil }
        return made.edit
    }

    /// Waits until the edits are made (none runs past the commit that started them).
    func finish() { done.wait() }
}
