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
        guard response.stream == nil, response.headers["Content-Encoding"] == nil,
              response.status == .notModified || !response.body.isEmpty else { return }
        response.headers.addToList("Vary", "Accept-Encoding")
        // The size first: an answer too small to compress (a write's is a few hundred bytes)
        // skips reading `Accept-Encoding` (~11k instructions for `identity`, callgrind).
        guard response.status == .notModified || response.body.count > minimumBytes, acceptsGzip(request) else { return }
        if response.status == .notModified {
            tagGzip(&response)
            return
        }
        let input = response.body
        var output = [UInt8](repeating: 0, count: sectional_gzip_bound(input.count))
        let written = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                sectional_gzip(source.baseAddress, source.count, target.baseAddress, target.count, 1)
            }
        }
        guard written > 0, written < input.count else { return }
        output.removeLast(output.count - written)
        response.body = output
        response.headers.add("Content-Encoding", "gzip")
        tagGzip(&response)
    }

    /// Whether `Accept-Encoding` makes gzip acceptable (RFC 9110 §12.5.3): its own weight, else
    /// that of `*`, must be above 0 (`gzip;q=0`, `*;q=0` and `identity` alone refuse it).
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let accepted = request.headers["Accept-Encoding"] else { return false }
        var gzip: Double?
        var any: Double?
        for item in accepted.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingSpaces.lowercased() }
            guard let coding = parts.first else { continue }
            let weight = parts.dropFirst().lazy.compactMap(qValue).first ?? 1
            switch coding {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, weight)
            case "*": any = max(any ?? 0, weight)
            default: break
            }
        }
        return (gzip ?? any ?? 0) > 0
    }

    /// The weight of a `q=` parameter (0 to 1; an unreadable one counts as 0), or nil for another parameter.
    private static func qValue(_ parameter: String) -> Double? {
        let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
        guard pair.count == 2, pair[0] == "q" else { return nil }
        guard let value = Double(pair[1]), value >= 0, value <= 1 else { return 0 }
        return value
    }

    private static func tagGzip(_ response: inout Response) {
        guard let tag = response.headers["ETag"], tag.hasSuffix("\""), !tag.hasPrefix("W/"), !tag.hasSuffix("-gzip\"") else { return }
        response.headers.set("ETag", String(tag.dropLast()) + "-gzip\"")
    }
}
