import CZlib

/// gzip for answers over 1 KiB when the client accepts it.
public enum Compression {
    public static let minimumBytes = 1024

    /// Compresses `response` in place when `request` accepts gzip and it is worth it.
    /// Streams, empty and already-encoded bodies are left alone. A strong `ETag` gets a `-gzip`
    /// suffix, since the bytes differ (RFC 9110 §8.8.3).
    ///
    /// Every answer that could have been compressed says `Vary: Accept-Encoding`, compressed or
    /// not, so a shared cache never hands a gzip body to a client that did not ask for one (nor
    /// keeps only the plain one); a `304` says what its `200` would have (RFC 9110 §15.4.5).
    public static func apply(to response: inout Response, for request: Request) {
        // A `304`'s memo served only its gzip form: its prepared responses are kept for `200`s.
        defer { if response.status == .notModified { response.memo = nil } }
        guard response.stream == nil, response.headers["Content-Encoding"] == nil,
              response.status == .notModified || !response.body.isEmpty else { return }
        response.headers.add("Vary", "Accept-Encoding")
        // The size first: an answer too small to compress (a write's is a few hundred bytes)
        // skips reading `Accept-Encoding`.
        guard response.body.count > minimumBytes, acceptsGzip(request) else { return }
        // A body served many times (a cached answer) carries its memo: compressed once.
        let made: [UInt8]?
        if let memo = response.memo, let kept = memo.gzip(of: response.body) { made = kept } else { made = gzip(response.body) }
        guard let output = made else { return }
        response.body = output
        tagGzip(&response)
        // A `304` carries its `200`'s body (never sent; see `EntityTag`) only for its length and
        // its tag, which are the gzip form's when its `200` would be gzipped.
        if response.status != .notModified { response.headers.add("Content-Encoding", "gzip") }
    }

    /// Whether `Accept-Encoding` makes gzip acceptable (RFC 9110 §12.5.3): its own weight, else
    /// that of `*`, must be above 0 (`gzip;q=0`, `*;q=0` and `identity` alone refuse it). Items
    /// and weights as ``WeightedList`` reads them, over the field's bytes (splitting it into
    /// lowercased strings cost ~11k instructions for `identity`, callgrind).
    static func acceptsGzip(_ request: Request) -> Bool {
        guard var accepted = request.headers.list("Accept-Encoding") else { return false }
        return accepted.withUTF8 { bytes in
            var gzip: Double?
            var any: Double?
            WeightedList.forEach(in: bytes) { coding, weight in
                if WeightedList.equalsIgnoringCase(bytes, coding, "gzip") || WeightedList.equalsIgnoringCase(bytes, coding, "x-gzip") {
                    gzip = max(gzip ?? 0, weight)
                } else if WeightedList.equalsIgnoringCase(bytes, coding, "*") {
                    any = max(any ?? 0, weight)
                }
            }
            return (gzip ?? any ?? 0) > 0
        }
    }

    /// `input` gzipped (level 1), or nil when that is not smaller.
    static func gzip(_ input: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: sectional_gzip_bound(input.count))
        let written = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                sectional_gzip(source.baseAddress, source.count, target.baseAddress, target.count, 1)
            }
        }
        guard written > 0, written < input.count else { return nil }
        // A copy of the written bytes alone: the output's storage is as large as the input, and a
        // memo keeps the gzip form as long as its answer (a fifth of the bytes, for a page).
        return [UInt8](unsafeUninitializedCapacity: written) { target, count in
            count = output.withUnsafeBufferPointer { target.initialize(fromContentsOf: $0[..<written]) }
        }
    }

    private static func tagGzip(_ response: inout Response) {
        guard let tag = response.headers["ETag"], tag.hasSuffix("\""), !tag.hasPrefix("W/"), !tag.hasSuffix("-gzip\"") else { return }
        response.headers.set("ETag", String(tag.dropLast()) + "-gzip\"")
    }
}
