import JSONOutput
#if canImport(Glibc)
import Glibc
#endif

/// Judges a request's head before any of its body is read (RFC 9112 §3, §6.1, §6.3), so a
/// request whose body length is ambiguous is refused instead of being read one way here and
/// another way by a proxy in front (request smuggling).
///
/// libmicrohttpd 0.9.75 frames the body from the first `Content-Length` or `Transfer-Encoding`
/// it finds and ignores the rest; a refusal from here is sent at once and closes the connection,
/// so no byte after the head is ever read as a request.
enum RequestFraming {
    /// What the framing rules need from a head's fields, gathered over each field's bytes as it
    /// is read (no string is made to check it): the first field that is malformed, the
    /// `Content-Length` values, the transfer codings and the `Host` fields.
    struct Fields {
        /// Why a field makes the head unservable, once one has.
        private var malformed: HTTPError?
        private var lengths: [String] = []
        private var codings: [String] = []
        private var encodingFields = 0
        /// Whether the first `Transfer-Encoding` field is exactly `chunked` (any case).
        private var plainChunked = false
        /// Whether a `Transfer-Encoding` value ended in whitespace, which libmicrohttpd keeps: it
        /// then does not read `chunked ` as chunked, and reads the body to no end.
        private var codingWithTrailingSpace = false
        private var hosts = 0

        init() {}

        /// Reads one field (name and value as sent, UTF-8, the value without the whitespace
        /// that ended it; `trailingSpace`: whether some did).
        mutating func read(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, trailingSpace: Bool = false) {
            guard malformed == nil else { return }
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                let text = String(decoding: name, as: UTF8.self)
                malformed = invalid("The header field name \(JSONWriter.quoted(HTTPError.echo(text))) is not a token.")
                return
            }
            if let start = value.baseAddress, memchr(start, 0, value.count) != nil || memchr(start, 13, value.count) != nil {
                malformed = invalid("The header field \(HTTPError.echo(String(decoding: name, as: UTF8.self))) holds a CR or NUL byte.")
                return
            }
            if WeightedList.equalsIgnoringCase(name, name.indices, "Host") {
                hosts += 1
                // A host and port hold no whitespace inside (RFC 9112 §3.2: an invalid Host is 400).
                // Read in place: every request has a Host field.
                let isSpace = { (byte: UInt8) in byte == 32 || byte == 9 }
                if let first = value.firstIndex(where: { !isSpace($0) }), let last = value.lastIndex(where: { !isSpace($0) }),
                   value[first...last].contains(where: isSpace) {
                    malformed = invalid("The Host header field is not a host and port.")
                }
            } else if WeightedList.equalsIgnoringCase(name, name.indices, "Content-Length") {
                lengths.append(String(decoding: value, as: UTF8.self))
            } else if WeightedList.equalsIgnoringCase(name, name.indices, "Transfer-Encoding") {
                encodingFields += 1
                if trailingSpace { codingWithTrailingSpace = true }
                let text = String(decoding: value, as: UTF8.self)
                if encodingFields == 1 { plainChunked = text.caseInsensitiveEquals("chunked") }
                codings += text.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
            }
        }

        /// The problem with a head of these fields, or nil when it can be served.
        /// - Parameters:
        ///   - isHTTP10: whether the request line said `HTTP/1.0` (which may omit `Host`).
        ///   - target: the request target as sent.
        func problem(method: HTTPMethod, isHTTP10: Bool, target: String) -> HTTPError? {
            if let problem = targetProblem(method: method, target: target) { return problem }
            if let malformed { return malformed }
            if hosts > 1 || (hosts == 0 && !isHTTP10) {
                return invalid("An HTTP/1.1 request needs exactly one Host header field.")
            }
            if encodingFields > 0 {
                // HTTP/1.0 has no transfer codings: its framing is faulty (RFC 9112 §6.1), and a
                // proxy that closes after it would read what follows the head otherwise.
                if isHTTP10 { return invalid("An HTTP/1.0 request may not carry Transfer-Encoding.") }
                if !lengths.isEmpty {
                    return invalid("A request may not carry both Content-Length and Transfer-Encoding.")
                }
                if codingWithTrailingSpace {
                    // A proxy that drops the space (RFC 9110 §5.5) reads chunks; libmicrohttpd would not.
                    return invalid("Transfer-Encoding must be exactly chunked, with no whitespace after it; the body length cannot be determined.")
                }
                if encodingFields == 1, codings == ["chunked"], plainChunked { return nil }
                if codings.last != "chunked" || codings.filter({ $0 == "chunked" }).count > 1 {
                    return invalid("Transfer-Encoding must end with chunked, once; the body length cannot be determined.")
                }
                return HTTPError(.notImplemented, "not-implemented", detail: "Only the chunked transfer coding is supported.")
            }
            if let first = lengths.first {
                guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), lengths.allSatisfy({ $0 == first }) else {
                    return invalid("Content-Length must be one decimal number.")
                }
            }
            return nil
        }

        /// The declared body length, when the fields declare one (valid once ``problem`` is nil):
        /// digits beyond `Int` read as `Int.max`, over every limit (libmicrohttpd takes up to
        /// 2^64 − 1, and such a body was read and dropped, never answered).
        var contentLength: Int? { lengths.first.map { Int($0) ?? .max } }
    }

    /// The target in origin form: an absolute-form target (`http://host/path?query`) loses its
    /// scheme and authority (RFC 9112 §3.2.2); any other is returned as is.
    static func originForm(_ target: String) -> String {
        if target.utf8.first == UInt8(ascii: "/") { return target }  // the usual origin form
        guard let rest = absoluteFormRest(target) else { return target }
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let path = String(rest[slash...])
        return path.hasPrefix("?") ? "/" + path : path
    }

    private static func targetProblem(method: HTTPMethod, target: String) -> HTTPError? {
        guard !target.isEmpty, bytes(of: target, allSatisfy: { $0 > 0x20 && $0 < 0x7F }) else {
            return invalid("The request target must be visible ASCII without spaces.")
        }
        // A byte, not `hasPrefix("/")`: the generic prefix match was 240 instructions a request.
        if target.utf8.first == UInt8(ascii: "/") || (target == "*" && method == .options) { return nil }
        if let rest = absoluteFormRest(target), !rest.isEmpty, !rest.hasPrefix("/") { return nil }
        return invalid("The request target must be a path starting with / or an absolute http(s) URI.")
    }

    /// What follows `http://` or `https://` (any case), or nil for another form.
    private static func absoluteFormRest(_ target: String) -> Substring? {
        for scheme in ["http://", "https://"] where target.utf8.count > scheme.utf8.count {
            let prefix = String(target.prefix(scheme.count))
            if prefix.caseInsensitiveEquals(scheme) { return target.dropFirst(scheme.count) }
        }
        return nil
    }

    /// Whether every UTF-8 byte of `text` passes `test`, read from its contiguous storage (the
    /// generic `utf8.allSatisfy` goes through the view's iterator byte by byte).
    private static func bytes(of text: String, allSatisfy test: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { $0.allSatisfy(test) }
    }

    private static func invalid(_ detail: String) -> HTTPError {
        HTTPError(.badRequest, "invalid-request", detail: detail)
    }

    /// `tchar` of RFC 9110 §5.6.2.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
