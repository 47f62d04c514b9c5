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
        // skips reading `Accept-Encoding`.
        guard response.status == .notModified || response.body.count > minimumBytes, acceptsGzip(request) else { return }
        if response.status == .notModified {
            tagGzip(&response)
            return
        }
        // A body served many times (a cached answer) carries its memo: compressed once.
        let made: [UInt8]?
        if let memo = response.gzipMemo, let kept = memo.gzip(of: response.body) { made = kept } else { made = gzip(response.body) }
        guard let output = made else { return }
        response.body = output
        response.headers.add("Content-Encoding", "gzip")
        tagGzip(&response)
    }

    /// Whether `Accept-Encoding` makes gzip acceptable (RFC 9110 §12.5.3): its own weight, else
    /// that of `*`, must be above 0 (`gzip;q=0`, `*;q=0` and `identity` alone refuse it).
    static func acceptsGzip(_ request: Request) -> Bool {
        guard var accepted = request.headers["Accept-Encoding"] else { return false }
        return accepted.withUTF8(acceptsGzip)
    }

    /// The same over the field's bytes: items at `,`, each a coding and `;` parameters, compared
    /// in place without regard to case (splitting into lowercased strings cost ~11k instructions
    /// for `identity`, callgrind: more than the rest of reading a cached page's request).
    static func acceptsGzip(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
        var gzip: Double?
        var any: Double?
        var start = 0
        for end in 0...field.count where end == field.count || field[end] == UInt8(ascii: ",") {
            defer { start = end + 1 }
            let item = field[start..<end]
            let codingEnd = item.firstIndex(of: UInt8(ascii: ";")) ?? item.endIndex
            let coding = trimmed(item[..<codingEnd])
            let isGzip = equalsIgnoringCase(coding, "gzip") || equalsIgnoringCase(coding, "x-gzip")
            guard isGzip || equalsIgnoringCase(coding, "*") else { continue }
            let weight = codingEnd == item.endIndex ? 1 : qValue(item[(codingEnd + 1)...]) ?? 1
            if isGzip { gzip = max(gzip ?? 0, weight) } else { any = max(any ?? 0, weight) }
        }
        return (gzip ?? any ?? 0) > 0
    }

    /// The weight of the first `q=` among `;`-separated parameters (0 to 1; an unreadable one
    /// counts as 0), or nil when there is none.
    private static func qValue(_ parameters: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        var start = parameters.startIndex
        for end in start...parameters.endIndex where end == parameters.endIndex || parameters[end] == UInt8(ascii: ";") {
            defer { start = end + 1 }
            let parameter = parameters[start..<end]
            guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")),
                  equalsIgnoringCase(trimmed(parameter[..<equals]), "q") else { continue }
            guard let value = Double(String(decoding: trimmed(parameter[(equals + 1)...]), as: UTF8.self)),
                  value >= 0, value <= 1 else { return 0 }
            return value
        }
        return nil
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }

    /// Whether `bytes` spell `lowercase` (ASCII) in any case.
    private static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        return zip(bytes, UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)).allSatisfy { byte, expected in
            byte == expected || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == expected)
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
        output.removeLast(output.count - written)
        return output
    }

    private static func tagGzip(_ response: inout Response) {
        guard let tag = response.headers["ETag"], tag.hasSuffix("\""), !tag.hasPrefix("W/"), !tag.hasSuffix("-gzip\"") else { return }
        response.headers.set("ETag", String(tag.dropLast()) + "-gzip\"")
    }
}
