import Glibc
import Locking

/// User tokens already verified, so a client that sends the same token with every request pays
/// for one signature check and one claims parse, not one per request (measured by `make
/// bench-peruser`: verifying on every read kept a warm partition's first page at 0.18 of the C
/// baseline). Keyed by the token's exact bytes (see ``Key``), so only the very bytes that
/// verified are trusted; an entry is used only until the token's `exp` (past it, the token is
/// verified again, leeway and all). At most ``capacity`` tokens are held; a full cache starts over.
final class VerifiedTokens: Sendable {
    static let capacity = 10_000

    private struct Entry {
        let caller: Caller
        /// `exp`, in seconds since 1970.
        let expiresAt: Double
    }

    /// A token as the memo's key: equal only when its bytes are (Swift's `String` equality would
    /// also take a canonically equivalent spelling, such as U+212A KELVIN SIGN for `K`), hashed
    /// by its length and last 32 bytes — a signed token ends with its signature, as distinct as
    /// the whole — so a warm read hashes 32 bytes rather than all ~200.
    struct Key: Hashable {
        let text: Substring

        static func == (a: Key, b: Key) -> Bool {
            let x = a.text.utf8, y = b.text.utf8
            guard x.count == y.count else { return false }
            // In time that does not depend on where they differ (a look-up compares the caller's
            // token with cached ones: tokens of others, whose signatures are secrets).
            let same = x.withContiguousStorageIfAvailable { x in
                y.withContiguousStorageIfAvailable { y in BearerAuth.constantTimeEquals(x, y) }
            }
            return (same ?? nil) ?? BearerAuth.constantTimeEquals(a.text.utf8, Array(y))
        }

        func hash(into hasher: inout Hasher) {
            let utf8 = text.utf8
            hasher.combine(utf8.count)
            let tail = utf8.suffix(32)
            if tail.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                for byte in tail { hasher.combine(byte) }
            }
        }
    }

    private let entries = Locked<[Key: Entry]>([:])

    /// The caller of a token verified before, while it has not expired at `now` (before
    /// `expiresAt`, as the verifier takes `exp`: at `exp` itself a token is refused).
    func caller(for token: Substring, now: Double) -> Caller? {
        entries.withLock { entries in
            guard let entry = entries[Key(text: token)] else { return nil }
            guard now < entry.expiresAt else {
                entries.removeValue(forKey: Key(text: token))
                return nil
            }
            return entry.caller
        }
    }

    /// Remembers a token that has just verified.
    func remember(_ token: Substring, caller: Caller, expiresAt: Double) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[Key(text: token)] = Entry(caller: caller, expiresAt: expiresAt)
        }
    }

    var count: Int { entries.withLock { $0.count } }
}
