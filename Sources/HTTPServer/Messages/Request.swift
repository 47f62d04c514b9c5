#if canImport(Glibc)
import Glibc
#endif

/// One HTTP request, complete with its body, as handed to a route handler.
public struct Request: Sendable {
    /// The method as sent, e.g. ``HTTPMethod/get``.
    public let method: HTTPMethod
    /// The request target as sent: path and query, still percent-encoded.
    public let rawURI: String
    /// The path part of ``rawURI``, still percent-encoded.
    public var rawPath: Substring { rawURI.beforeQuery }
    /// The path, percent-decoded.
    public var path: String {
        var path = String(rawPath)
        var valid = true
        return path.withUTF8 { PercentDecoding.decode($0, plusIsSpace: false, valid: &valid) }
    }
    /// The path's segments, each percent-decoded (so `%2F` inside a segment stays inside it):
    /// what lies between the slashes after the first, empty ones too (`/a//b` is `a`, ``, `b`;
    /// `/a/` is `a`, ``; `/` is none). A route's `{name}` then gets an empty name, which it refuses,
    /// rather than the segment after it: dropping them made `/v1/lists//rows` the list `rows`.
    public let pathSegments: [String]
    /// Query parameters in order, names and values percent-decoded (`+` is a space).
    public let query: [(name: String, value: String)]
    /// Whether every path segment and query name and value is UTF-8 once percent-decoded
    /// (`%FF` is not). Where one is not, its invalid bytes read as U+FFFD, and the router answers
    /// `400 invalid-request` instead of routing it (``Router/respond(to:)``).
    public let isUTF8: Bool
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// Values of the `{name}` parts of the matched route template.
    public internal(set) var parameters: [(name: String, value: String)] = []
    /// The matched route template, e.g. `/v1/lists/{list}`; empty when none matched.
    public var route: String = ""

    public init(method: HTTPMethod, uri: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.rawURI = uri
        self.headers = headers
        self.body = body
        // Byte-wise (UTF-8) scanning over the target's contiguous bytes: the delimiters are
        // ASCII, and Character iteration (grapheme breaking) would cost more than the rest of
        // the request; the generic `split` of a `UTF8View` and its arrays of slices were about a
        // tenth of a warm read.
        var target = uri
        var valid = true
        (pathSegments, query) = target.withUTF8 { bytes in
            let pathEnd = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
            var segments: [String] = []
            segments.reserveCapacity(6)
            var start = bytes.first == UInt8(ascii: "/") ? 1 : 0
            if start < pathEnd {
                for i in start...pathEnd where i == pathEnd || bytes[i] == UInt8(ascii: "/") {
                    segments.append(PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[start..<i]), plusIsSpace: false, valid: &valid))
                    start = i + 1
                }
            }
            guard pathEnd < bytes.endIndex else { return (segments, []) }
            return (segments, PercentDecoding.queryItems(UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)...]), valid: &valid))
        }
        isUTF8 = valid
    }

    /// The first value of a query parameter, or nil.
    public func query(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The first query parameter name the target gives more than once, other than those
    /// `repeatable` takes, or nil; an empty name (`?=x`) names nothing and is not counted.
    /// Pairwise for a short query (no allocation), through a set for a long one: a target of a
    /// few kilobytes can hold thousands of parameters. `repeatable` is asked only of a name found
    /// twice.
    public func repeatedQueryName(except repeatable: (String) -> Bool = { _ in false }) -> String? {
        guard query.count > 1 else { return nil }
        if query.count <= 16 {
            for i in 1..<query.count where !query[i].name.isEmpty && query[..<i].contains(where: { $0.name == query[i].name })
                && !repeatable(query[i].name) {
                return query[i].name
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: query.count)
        return query.first { !$0.name.isEmpty && !seen.insert($0.name).inserted && !repeatable($0.name) }?.name
    }

    /// A path parameter of the matched route; routes guarantee the ones in their template.
    public func parameter(_ name: String) -> String {
        for parameter in parameters where parameter.name == name { return parameter.value }
        return ""
    }
}

extension String {
    /// The part before the first `?`: the path of a request target. Found with `memchr` over
    /// the string's contiguous UTF-8; the generic `firstIndex(of:)` walk through the UTF-8 view
    /// cost 700 instructions for every request log line (callgrind, a first page).
    var beforeQuery: Substring {
        let utf8 = self.utf8
        let offset = utf8.withContiguousStorageIfAvailable { bytes -> Int in
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else { return bytes.count }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
        }
        let end = offset.map { utf8.index(utf8.startIndex, offsetBy: $0) } ?? utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        return Substring(utf8[..<end])
    }
}

/// Percent-decoding of URI components (RFC 3986 §2.1), over the target's bytes.
enum PercentDecoding {
    /// `bytes` (UTF-8) with every `%XX` decoded and, when `plusIsSpace`, `+` read as a space; a
    /// malformed escape stays as it is, and invalid UTF-8 after decoding becomes U+FFFD and
    /// clears `valid` (which is otherwise left as it is).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool, valid: inout Bool) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) {
                decoded.append(hi << 4 | lo)
                i += 3
                continue
            }
            decoded.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            i += 1
        }
        if let text = String(validating: decoded, as: UTF8.self) { return text }
        valid = false
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The `name=value` items of a query's bytes (`&`-separated, empty items skipped; an item
    /// without `=` has an empty value), each part percent-decoded with `+` as a space. Over the
    /// bytes at once: splitting the string's UTF-8 view and decoding each part as a `Substring`
    /// was a third of the parsing of a request with one parameter (callgrind, a `?q=` first page).
    /// A part that is not UTF-8 once decoded clears `valid` (see ``decode(_:plusIsSpace:valid:)``).
    static func queryItems(_ query: UnsafeBufferPointer<UInt8>, valid: inout Bool) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        items.reserveCapacity(4)
        var start = 0
        for i in 0...query.count where i == query.count || query[i] == UInt8(ascii: "&") {
            defer { start = i + 1 }
            guard i > start else { continue }
            let item = UnsafeBufferPointer(rebasing: query[start..<i])
            if let eq = item.firstIndex(of: UInt8(ascii: "=")) {
                items.append((decode(UnsafeBufferPointer(rebasing: item[..<eq]), plusIsSpace: true, valid: &valid),
                              decode(UnsafeBufferPointer(rebasing: item[(eq + 1)...]), plusIsSpace: true, valid: &valid)))
            } else {
                items.append((decode(item, plusIsSpace: true, valid: &valid), ""))
            }
        }
        return items
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
