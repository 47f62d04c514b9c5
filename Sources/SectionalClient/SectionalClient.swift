import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of a Sectional server: lists (``list(_:)``) and record collections (``collection(_:)``).
///
/// Every request carries `Authorization: Bearer <token>` when the token provider gives a token;
/// it is asked again for each request, so an app can refresh its user's token. Problem answers
/// are thrown as ``SectionalError``.
///
/// **Read-your-writes** behind a load balancer (several instances on one PostgreSQL database):
/// `client.reading(atLeast: written.version)` is a client whose reads are answered only at that
/// version or later (`Sectional-Min-Version`): the instance that gets the read waits for it (up
/// to a second, then `503 not-caught-up`).
public struct SectionalClient: Sendable {
    /// Gives the bearer token for the next request (`nil` or empty: send none).
    public typealias TokenProvider = @Sendable () async throws -> String?

    /// The server's base URL (`https://lists.example.com`).
    public let baseURL: URL
    let session: URLSession
    let tokenProvider: TokenProvider
    /// The version every read must be answered at, or later (``reading(atLeast:)``).
    public private(set) var minVersion: Int?

    /// A client with a fixed token (or none).
    public init(baseURL: URL, token: String? = nil, session: URLSession = .shared) {
        self.init(baseURL: baseURL, session: session, tokenProvider: { token })
    }

    /// A client that asks `tokenProvider` for the token before every request.
    public init(baseURL: URL, session: URLSession = .shared, tokenProvider: @escaping TokenProvider) {
        self.baseURL = baseURL
        self.session = session
        self.tokenProvider = tokenProvider
    }

    /// This client, with reads answered at `version` or later (the highest asked for, when this
    /// one asks already): a write's `version` (``SectionalCollection/Written/version``, a batch's,
    /// a delete's), so that what reads it next sees it, whichever
    /// instance answers. For the reads that follow a write: a mirror made from it for good would
    /// wait on every read of a server that went back to an older database.
    public func reading(atLeast version: Int) -> SectionalClient {
        var client = self
        client.minVersion = max(minVersion ?? version, version)
        return client
    }

    /// One list's API; with `search`, every read of it is of that search and filter result.
    public func list(_ name: String, search: ListSearch = ListSearch()) -> SectionalList {
        SectionalList(client: self, name: name, search: search)
    }

    /// One record collection's API.
    public func collection(_ name: String) -> SectionalCollection { SectionalCollection(client: self, name: name) }

    /// `GET /v1/lists`: the lists the caller may read.
    public func lists() async throws -> ListsIndex {
        try await get(["v1", "lists"])
    }

    // MARK: Requests

    /// A URL under `baseURL`: path segments and a query, each segment, name and value
    /// percent-encoded (a filter's name is a field's, and a field may hold any character).
    func url(_ segments: [String], query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        let base = components.percentEncodedPath.hasSuffix("/") ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        components.percentEncodedPath = base + segments.map { "/" + encoded($0) }.joined()
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { name, value in "\(encoded(name))=\(encoded(value))" }.joined(separator: "&")
        }
        return components.url ?? baseURL
    }

    /// A request with the token, if any.
    func request(_ method: String, _ url: URL, body: Data? = nil) async throws -> URLRequest {
        // Fresh answers always: a mirror must never apply a cached one.
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if method == "GET", let minVersion { request.setValue(String(minVersion), forHTTPHeaderField: "Sectional-Min-Version") }
        if let token = try await tokenProvider(), !token.isEmpty {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// Sends a request; a non-2xx answer is thrown as its problem. Cancelling the calling task
    /// cancels the request (`CancellationError`). `version`: the answer's `Sectional-Version`
    /// (a write's), 0 without one.
    func send(_ method: String, _ segments: [String], query: [(String, String)] = [],
              body: Data? = nil) async throws -> (data: Data, status: Int, version: Int) {
        let request = try await request(method, url(segments, query: query), body: body)
        let (data, response) = try await session.answer(to: request)
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw SectionalError.from(status: status, body: data, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"))
        }
        return (data, status, http?.value(forHTTPHeaderField: "Sectional-Version").flatMap { Int($0) } ?? 0)
    }

    /// Sends a request and decodes its JSON answer.
    func send<T: Decodable>(_ method: String, _ segments: [String], query: [(String, String)] = [], body: Data? = nil) async throws -> T {
        let (data, status, _) = try await send(method, segments, query: query, body: body)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw SectionalError.unreadable("\(T.self): \(error)", status: status)
        }
    }

    /// `GET` and decode.
    func get<T: Decodable>(_ segments: [String], query: [(String, String)] = []) async throws -> T {
        try await send("GET", segments, query: query)
    }

    /// JSON text of a value.
    static func json<T: Encodable>(_ value: T) throws -> Data { try JSONEncoder().encode(value) }
}
