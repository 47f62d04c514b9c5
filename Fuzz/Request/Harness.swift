@testable import HTTPServer

/// Fuzz target: the pure request parsing of `HTTPServer` (everything that reads a request head
/// before and after libmicrohttpd has split it into fields).
///
/// Input: a request head as a client writes it (`METHOD target VERSION`, header lines, CRLF or
/// LF line ends). The harness splits it the way libmicrohttpd hands it over, then runs the
/// framing judgement (RFC 9112 smuggling checks), absolute-form targets, path segments, query
/// items and percent-decoding, route matching, the `Accept-Encoding` q-values and CORS. None of
/// it may trap; a refusal is an `HTTPError` with a 4xx/5xx status.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
        line.hasSuffix("\r") ? line.dropLast() : line
    }
    guard !lines.isEmpty else { return 0 }
    let requestLine = lines.removeFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    let method = String(requestLine[0])
    let target = requestLine.count > 1 ? String(requestLine[1]) : ""
    let version = requestLine.count > 2 ? String(requestLine[2]) : ""
    var headers = HTTPHeaders()
    for line in lines {
        if line.isEmpty { break }
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces)
    }

    // The fields' bytes read as the server reads them from libmicrohttpd.
    var fields = RequestFraming.Fields()
    for (name, value) in headers {
        var name = name, value = value
        name.withUTF8 { name in value.withUTF8 { fields.read(name: name, value: $0) } }
    }
    if let problem = fields.problem(method: HTTPMethod(method), isHTTP10: version == "HTTP/1.0", target: target) {
        precondition(problem.status.code >= 400 && problem.status.code < 600, "a refusal with status \(problem.status)")
        return 0
    }
    let uri = RequestFraming.originForm(target)
    var request = Request(method: HTTPMethod(method), uri: uri, headers: headers)
    for name in ["pageSize", "pageToken", "view", "since", "types", "keys", ""] { _ = request.query(name) }
    _ = request.path
    if let match = router.match(request.pathSegments) {
        _ = match.allowedMethods
        _ = router.respond(to: &request)
    }
    _ = Compression.acceptsGzip(request)
    let cors = CrossOrigin(origins: ["https://app.example", "http://127.0.0.1:8080"])
    _ = cors.allowedOrigin(request)
    if CrossOrigin.isPreflight(request) {
        var response = Response(status: .noContent)
        response.headers.add("Allow", "GET, PUT, OPTIONS")
        cors.preflight(&response, for: request)
    } else {
        var response = Response(body: Array(repeating: UInt8(ascii: "a"), count: 2048))
        cors.decorate(&response, for: request)
        Compression.apply(to: &response, for: request)
    }
    return 0
}

/// Routes shaped like the service's, answering with their parameters.
private let router: Router = {
    var router = Router()
    for template in ["/v1/lists", "/v1/lists/{list}", "/v1/lists/{list}/rows", "/v1/lists/{list}/sections/{index}/rows",
                     "/v1/lists/{list}/views/{view}/sections/{index}", "/v1/collections/{c}/records/{id}", "/healthz"] {
        router.get(template) { request in Response(body: Array(request.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: "&").utf8)) }
        router.put(template) { _ in throw HTTPError(.badRequest, "invalid-request", detail: "refused") }
    }
    return router
}()
