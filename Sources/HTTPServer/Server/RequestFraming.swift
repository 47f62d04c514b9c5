/// Judges a request's head before any of its body is read (RFC 9112 §3, §6.1, §6.3), so a
/// request whose body length is ambiguous is refused instead of being read one way here and
/// another way by a proxy in front (request smuggling).
///
/// libmicrohttpd 0.9.75 frames the body from the first `Content-Length` or `Transfer-Encoding`
/// it finds and ignores the rest; a refusal from here is sent at once and closes the connection,
/// so no byte after the head is ever read as a request.
enum RequestFraming {
    /// The problem with this head, or nil when it can be served.
    /// - Parameters:
    ///   - version: the HTTP version as sent, e.g. `HTTP/1.1`.
    ///   - target: the request target as sent.
    static func problem(method: String, version: String, target: String, headers: HTTPHeaders) -> HTTPError? {
        if let problem = targetProblem(method: method, target: target) { return problem }
        var lengths: [String] = []
        var codings: [String] = []
        var encodingFields = 0
        var hosts = 0
        for (name, value) in headers {
            guard !name.isEmpty, bytes(of: name, allSatisfy: isTokenByte) else {
                return invalid("The header field name \(JSONText.quote(name)) is not a token.")
            }
            guard bytes(of: value, allSatisfy: { $0 != 0 && $0 != 13 }) else {
                return invalid("The header field \(name) holds a CR or NUL byte.")
            }
            if name.caseInsensitiveEquals("Content-Length") {
                lengths.append(value)
            } else if name.caseInsensitiveEquals("Transfer-Encoding") {
                encodingFields += 1
                codings += value.split(separator: ",").map { $0.trimmingSpaces.lowercased() }
            } else if name.caseInsensitiveEquals("Host") {
                hosts += 1
            }
        }
        if hosts > 1 || (hosts == 0 && version != "HTTP/1.0") {
            return invalid("An HTTP/1.1 request needs exactly one Host header field.")
        }
        if encodingFields > 0 {
            if !lengths.isEmpty {
                return invalid("A request may not carry both Content-Length and Transfer-Encoding.")
            }
            if encodingFields == 1, codings == ["chunked"], headers["Transfer-Encoding"]?.caseInsensitiveEquals("chunked") == true {
                return nil
            }
            if codings.last != "chunked" || codings.filter({ $0 == "chunked" }).count > 1 {
                return invalid("Transfer-Encoding must end with chunked, once; the body length cannot be determined.")
            }
            return HTTPError(501, "not-implemented", detail: "Only the chunked transfer coding is supported.")
        }
        if let first = lengths.first {
            guard !first.isEmpty, first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), lengths.allSatisfy({ $0 == first }) else {
                return invalid("Content-Length must be one decimal number.")
            }
        }
        return nil
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

    private static func targetProblem(method: String, target: String) -> HTTPError? {
        guard !target.isEmpty, bytes(of: target, allSatisfy: { $0 > 0x20 && $0 < 0x7F }) else {
            return invalid("The request target must be visible ASCII without spaces.")
        }
        if target.hasPrefix("/") || (target == "*" && method == "OPTIONS") { return nil }
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
    /// generic `utf8.allSatisfy` goes through the view's iterator byte by byte: a few percent of
    /// a request carrying a bearer token, perf under `make bench-peruser`).
    private static func bytes(of text: String, allSatisfy test: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { $0.allSatisfy(test) }
    }

    private static func invalid(_ detail: String) -> HTTPError {
        HTTPError(400, "invalid-request", detail: detail)
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
