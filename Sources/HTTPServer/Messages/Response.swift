/// One HTTP response. The body is handed to libmicrohttpd without a copy.
public struct Response: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When set, the body is this stream instead of ``body`` (e.g. Server-Sent Events).
    public var stream: StreamBody?
    /// When set, the real answer comes later from this (status, headers and body here are unused).
    public var deferred: DeferredResponse?
    /// When set, what a response with this body keeps for the next one: its gzip form and the
    /// libmicrohttpd responses built for it (used only while ``body`` is the memo's own storage
    /// or its gzip form; see ``ResponseMemo``).
    public var memo: ResponseMemo?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], stream: StreamBody? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// A JSON answer (`application/json; charset=utf-8`).
    public static func json(_ body: [UInt8], status: HTTPStatus = .ok) -> Response {
        var headers = HTTPHeaders()
        headers.reserveCapacity(8)  // a list read adds ETag, Cache-Control, Vary, Content-Language, Link…
        headers.add("Content-Type", "application/json; charset=utf-8")
        return Response(status: status, headers: headers, body: body)
    }

    /// A JSON answer from text that is already JSON.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> Response {
        json(Array(text.utf8), status: status)
    }

    /// An answer another thread completes later (see ``DeferredResponse``).
    public static func later(_ deferred: DeferredResponse) -> Response {
        var response = Response(status: .unanswered)
        response.deferred = deferred
        return response
    }

    /// An answer with no body, e.g. `204 No Content`.
    public static func empty(status: HTTPStatus = .noContent) -> Response {
        Response(status: status)
    }
}
