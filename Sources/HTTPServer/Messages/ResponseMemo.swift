import CMicroHTTPD
import Locking

/// What an answer served many times (a cached page or outline) keeps between requests, so the
/// work that is the same for each of them is done once:
///
/// - its **gzip form**, made by the first request that accepts gzip (a 17 KiB first page at gzip
///   level 1 cost more than the rest of its request);
/// - the **libmicrohttpd responses** built for it: the body handed over and the header fields
///   copied in, queued again for each later request with the same status, fields and body
///   (libmicrohttpd counts a response's references under its own lock, and a response may be
///   queued on any number of connections). Building one — six `MHD_add_response_header` calls,
///   the body's hand-over and release — was a fifth of a warm per-user first page (callgrind).
///
/// It holds the body it belongs to, so a response whose body is not that very storage (or the
/// gzip form's) is compressed and built afresh: the storage cannot be freed and reused while the
/// memo compares against it.
///
/// At most ``maximumPrepared`` responses are kept (plain and gzip, each with or without CORS
/// fields, say); fields that differ on every request (an `Access-Control-Allow-Origin` for many
/// origins) fill it, and the requests after are built as if there were no memo. Kept responses
/// are freed with the memo (libmicrohttpd frees each once its last connection has sent it).
///
/// What it keeps besides the body is counted in ``bytes`` and reported to an observer as it grows
/// (``observe(_:)``), so a cache that holds the memo can count it.
public final class ResponseMemo: Sendable {
    /// Prepared responses kept per memo.
    static let maximumPrepared = 4
    /// What one kept libmicrohttpd response takes besides its header fields: its struct and
    /// mutex, the Swift `Prepared` and its slot, a field's allocations. Measured by RSS together
    /// with the service's per-answer overhead (`AnswerCache.Answer.overhead`, whose note says
    /// how); the split between the two is an estimate from the structures' sizes.
    public static let preparedOverhead = 640

    /// What a kept response costs: ``preparedOverhead`` and its fields twice (libmicrohttpd's
    /// copies and the Swift ones it is matched against).
    public static func preparedBytes(headerBytes: Int) -> Int { preparedOverhead + 2 * headerBytes }

    private let plain: [UInt8]
    /// nil: not made yet; `.some(nil)`: gzip is not smaller.
    private let made = Locked<[UInt8]??>(nil)
    private let prepared = Locked<[Prepared]>([])
    /// The bytes kept besides the body, and who hears when they grow.
    private let kept = Locked<(bytes: Int, observer: (@Sendable (Int) -> Void)?)>((0, nil))

    /// A memo for `body` (no copy: the array's storage is shared).
    public init(_ body: [UInt8]) { plain = body }

    deinit {
        prepared.withLock { $0.forEach { MHD_destroy_response($0.answer) } }
    }

    /// For `body`, when it is the memo's own storage: its gzip form (made now when first asked),
    /// or `.some(nil)` when gzip is not smaller; nil for another body.
    func gzip(of body: [UInt8]) -> [UInt8]?? {
        guard body.isSameStorage(as: plain) else { return nil }
        if let kept = made.withLock({ $0 }) { return kept }
        // Two first requests at once may both compress; the first kept is used (and counted).
        let output = Compression.gzip(plain)
        let (result, first) = made.withLock { made -> ([UInt8]?, Bool) in
            if let other = made { return (other, false) }
            made = .some(output)
            return (output, true)
        }
        if first, let output { grew(by: output.capacity) }
        return result
    }

    /// The bytes the memo keeps besides its body: its gzip form (by capacity) and its kept
    /// responses (``preparedBytes(headerBytes:)`` each).
    public var bytes: Int { kept.withLock { $0.bytes } }

    /// Has `observer` called with the bytes each later growth adds; returns ``bytes`` so far,
    /// read in the same step, so every growth is in exactly one of the two. One observer: a
    /// later call replaces it. It is called on the thread that grew the memo, with no lock of
    /// the memo held.
    public func observe(_ observer: @escaping @Sendable (Int) -> Void) -> Int {
        kept.withLock { kept in
            kept.observer = observer
            return kept.bytes
        }
    }

    private func grew(by bytes: Int) {
        let observer = kept.withLock { kept in
            kept.bytes += bytes
            return kept.observer
        }
        observer?(bytes)
    }

    /// The libmicrohttpd response kept for `response`, made by `build` when there is none yet
    /// and room to keep it, with the bytes its header fields take; nil when `response`'s body
    /// is not the memo's (plain or gzip) or `build` fails. A response kept is valid while the
    /// memo lives and must not be destroyed by the caller (`owned` is false); one made but not
    /// kept is the caller's (`owned` is true).
    func answer(for response: Response, build: (Response) -> (answer: OpaquePointer, headerBytes: Int)?)
        -> (answer: OpaquePointer, headerBytes: Int, owned: Bool)? {
        guard response.body.isSameStorage(as: plain) || made.withLock({ $0??.isSameStorage(as: response.body) ?? false }) else {
            return nil
        }
        if let found = prepared.withLock({ $0.first { $0.matches(response) } }) {
            return (found.answer, found.headerBytes, false)
        }
        guard let built = build(response) else { return nil }
        let entry = Prepared(status: response.status, headers: response.headers, body: response.body,
                             answer: built.answer, headerBytes: built.headerBytes)
        // Two first requests at once may both build: the first kept is used, the other freed.
        let kept: Prepared? = prepared.withLock { kept in
            if let other = kept.first(where: { $0.matches(response) }) { return other }
            guard kept.count < Self.maximumPrepared else { return nil }
            kept.append(entry)
            return entry
        }
        guard let kept else { return (built.answer, built.headerBytes, true) }
        if kept.answer != built.answer {
            MHD_destroy_response(built.answer)
        } else {
            grew(by: Self.preparedBytes(headerBytes: built.headerBytes))
        }
        return (kept.answer, kept.headerBytes, false)
    }

    /// One response libmicrohttpd holds ready, and what it was built from. Sendable because the
    /// response is never changed once built: libmicrohttpd only reads it, counting its
    /// references under its own lock.
    private struct Prepared: @unchecked Sendable {
        let status: HTTPStatus
        let headers: HTTPHeaders
        /// The body's storage, kept alive so no other body can take its address.
        let body: [UInt8]
        let answer: OpaquePointer
        let headerBytes: Int

        /// Whether this was built from `response`'s status, fields and body storage.
        func matches(_ response: Response) -> Bool {
            status == response.status && headers == response.headers && body.isSameStorage(as: response.body)
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether both arrays are the same storage (not only equal bytes).
    func isSameStorage(as other: [UInt8]) -> Bool {
        count == other.count && withUnsafeBufferPointer { a in other.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }
}
