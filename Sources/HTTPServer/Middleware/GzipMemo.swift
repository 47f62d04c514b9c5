import Synchronization

/// The gzip form of one body, made by the first request that accepts gzip and kept for the
/// next ones: an answer served many times (a cached page) is compressed once, not once per
/// request (a 17 KiB first page at gzip level 1 cost more than the rest of its request).
///
/// It holds the body it belongs to, so ``Compression`` takes it only for a response whose body
/// is that very storage: a body replaced after the memo was attached is compressed afresh, and
/// the storage cannot be freed and reused while the memo compares against it.
public final class GzipMemo: Sendable {
    private let plain: [UInt8]
    /// nil: not made yet; `.some(nil)`: gzip is not smaller.
    private let made = Mutex<[UInt8]??>(nil)

    /// A memo for `body` (no copy: the array's storage is shared).
    public init(_ body: [UInt8]) { plain = body }

    /// For `body`, when it is the memo's own storage: its gzip form (made now when first asked),
    /// or `.some(nil)` when gzip is not smaller; nil for another body.
    func gzip(of body: [UInt8]) -> [UInt8]?? {
        let same = body.count == plain.count && body.withUnsafeBufferPointer { a in
            plain.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
        }
        guard same else { return nil }
        if let kept = made.withLock({ $0 }) { return kept }
        // Two first requests at once may both compress; either result is the same bytes.
        let output = Compression.gzip(plain)
        made.withLock { $0 = output }
        return output
    }
}
