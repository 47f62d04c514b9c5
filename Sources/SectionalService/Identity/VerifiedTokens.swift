import Synchronization

/// User tokens already verified, so a client that sends the same token with every request pays
/// for one signature check and one claims parse, not one per request (measured by `make
/// bench-peruser`: verifying on every read kept a warm partition's first page at 0.18 of the C
/// baseline). Keyed by the token's exact text, so only the very bytes that verified are
/// trusted; an entry is used only until the token's `exp` (past it, the token is verified again,
/// leeway and all). At most ``capacity`` tokens are held; a full cache starts over.
final class VerifiedTokens: Sendable {
    static let capacity = 10_000

    private struct Entry {
        let caller: Caller
        /// `exp`, in seconds since 1970.
        let expiresAt: Double
    }

    private let entries = Mutex<[Substring: Entry]>([:])

    /// The caller of a token verified before, while it has not expired at `now`.
    func caller(for token: Substring, now: Double) -> Caller? {
        entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard now <= entry.expiresAt else {
                entries.removeValue(forKey: token)
                return nil
            }
            return entry.caller
        }
    }

    /// Remembers a token that has just verified.
    func remember(_ token: Substring, caller: Caller, expiresAt: Double) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[token] = Entry(caller: caller, expiresAt: expiresAt)
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
