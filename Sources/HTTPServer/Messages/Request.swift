/// One HTTP request, complete with its body, as handed to a route handler.
public struct Request: Sendable {
    /// The method as sent, e.g. ``HTTPMethod/get``.
    public let method: HTTPMethod
    /// The request target as sent: path and query, still percent-encoded.
    public let rawURI: String
    /// The path part of ``rawURI``, still percent-encoded.
    public var rawPath: Substring {
        let utf8 = rawURI.utf8
        return Substring(utf8[..<(utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex)])
    }
    /// The path, percent-decoded.
    public var path: String { PercentDecoding.decode(rawPath, plusIsSpace: false) }
    /// The path's segments, each percent-decoded (so `%2F` inside a segment stays inside it).
    public let pathSegments: [String]
    /// Query parameters in order, names and values percent-decoded (`+` is a space).
    public let query: [(name: String, value: String)]
    public let headers: HTTPHeaders
    public let body: [UInt8]
    /// Values of the `{name}` parts of the matched route template.
    public internal(set) var parameters: [String: String] = [:]
    /// The matched route template, e.g. `/v1/lists/{list}`; empty when none matched.
    public var route: String = ""

    public init(method: HTTPMethod, uri: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.method = method
        self.rawURI = uri
        self.headers = headers
        self.body = body
        // Byte-wise (UTF-8) scanning: the delimiters are ASCII, and Character iteration
        // (grapheme breaking) would cost more than the rest of the request.
        let utf8 = uri.utf8
        let pathEnd = utf8.firstIndex(of: UInt8(ascii: "?")) ?? utf8.endIndex
        self.pathSegments = utf8[..<pathEnd].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            .map { PercentDecoding.decode(Substring($0), plusIsSpace: false) }
        if pathEnd < utf8.endIndex {
            self.query = PercentDecoding.queryItems(of: uri, from: utf8.distance(from: utf8.startIndex, to: pathEnd) + 1)
        } else {
            self.query = []
        }
    }

    /// The first value of a query parameter, or nil.
    public func query(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// A path parameter of the matched route; routes guarantee the ones in their template.
    public func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }
}

/// Percent-decoding of URI components (RFC 3986 §2.1).
enum PercentDecoding {
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let byte = utf8[i]
            if byte == UInt8(ascii: "%"),
               let h1 = utf8.index(i, offsetBy: 1, limitedBy: utf8.endIndex), h1 < utf8.endIndex,
               let h2 = utf8.index(i, offsetBy: 2, limitedBy: utf8.endIndex), h2 < utf8.endIndex,
               let hi = hexValue(utf8[h1]), let lo = hexValue(utf8[h2]) {
                bytes.append(hi << 4 | lo)
                i = utf8.index(after: h2)
                continue
            }
            bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            i = utf8.index(after: i)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `&`-separated items of the query of `uri` that begins at UTF-8 offset `offset` (empty
    /// items skipped), each split at its first `=`, names and values decoded with `+` as a space.
    /// Over the query's bytes at once: splitting the string's UTF-8 view and decoding each part
    /// as a `Substring` was a third of the parsing of a request with one parameter (callgrind, a
    /// `?q=` first page).
    static func queryItems(of uri: String, from offset: Int) -> [(name: String, value: String)] {
        var uri = uri
        return uri.withUTF8 { all in
            let bytes = UnsafeBufferPointer(rebasing: all[offset...])
            var items: [(name: String, value: String)] = []
            var start = 0
            while start < bytes.count {
                var end = start, equals = -1
                while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                    if equals < 0, bytes[end] == UInt8(ascii: "=") { equals = end }
                    end += 1
                }
                if end > start {
                    if equals >= 0 {
                        items.append((decodeQueryPart(bytes[start..<equals]), decodeQueryPart(bytes[(equals + 1)..<end])))
                    } else {
                        items.append((decodeQueryPart(bytes[start..<end]), ""))
                    }
                }
                start = end + 1
            }
            return items
        }
    }

    /// One name or value of a query, percent-decoded with `+` as a space (as ``decode(_:plusIsSpace:)``).
    private static func decodeQueryPart(_ part: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard part.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: UnsafeBufferPointer(rebasing: part), as: UTF8.self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.count)
        var i = part.startIndex
        while i < part.endIndex {
            let byte = part[i]
            if byte == UInt8(ascii: "%"), i + 2 < part.endIndex, let hi = hexValue(part[i + 1]), let lo = hexValue(part[i + 2]) {
                bytes.append(hi << 4 | lo)
                i += 3
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
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
