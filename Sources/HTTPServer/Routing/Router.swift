/// Routes requests by method and path template, e.g. `/v1/lists/{list}/rows/{rowId}`.
///
/// Literal segments win over `{parameter}` segments. A path that matches no template answers
/// `404 not-found`; a path that matches with another method answers `405 method-not-allowed`
/// with an `Allow` header. `HEAD` is answered by the `GET` handler (libmicrohttpd drops the body).
/// Build the router once, then hand it to the server: it is immutable while serving.
///
/// Routes added inside ``guarded(by:_:)`` carry that guard: it runs before their handler, and
/// ``Match/admit(_:)`` runs it from the request head alone (before a body is read), so a route
/// of a guarded group cannot forget its check.
public struct Router: Sendable {
    /// A route handler: plain synchronous code on a server thread. Throw ``HTTPError`` for problems.
    public typealias Handler = @Sendable (Request) throws -> Response
    /// A check of the request head that runs before a handler; throws to refuse the request.
    public typealias Guard = @Sendable (Request) throws(HTTPError) -> Void

    private struct Node: Sendable {
        var literals: [String: Int] = [:]
        var parameter: (name: String, node: Int)?
        var handlers: [String: Handler] = [:]
        var guards: [String: Guard] = [:]
        var template = ""
    }

    private var nodes = [Node()]
    /// The guards of the groups being registered, outermost first.
    private var activeGuards: [Guard] = []

    public init() {}

    /// Adds a handler for `method` on `template`. Adding the same method and template twice replaces it.
    public mutating func add(_ method: String, _ template: String, _ handler: @escaping Handler) {
        var current = 0
        for segment in template.split(separator: "/") {
            if segment.hasPrefix("{") && segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                if let (existing, next) = nodes[current].parameter {
                    precondition(existing == name, "route \(template): {\(name)} conflicts with {\(existing)}")
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].parameter = (name, nodes.count - 1)
                    current = nodes.count - 1
                }
            } else if let next = nodes[current].literals[String(segment)] {
                current = next
            } else {
                nodes.append(Node())
                nodes[current].literals[String(segment)] = nodes.count - 1
                current = nodes.count - 1
            }
        }
        nodes[current].handlers[method] = handler
        nodes[current].guards[method] = Self.combined(activeGuards)
        nodes[current].template = template
    }

    /// Registers the routes `register` adds with `check` as their guard (after any guard of an
    /// enclosing group).
    public mutating func guarded(by check: @escaping Guard, _ register: (inout Router) -> Void) {
        activeGuards.append(check)
        register(&self)
        activeGuards.removeLast()
    }

    private static func combined(_ guards: [Guard]) -> Guard? {
        guard let first = guards.first else { return nil }
        if guards.count == 1 { return first }
        return { (request: Request) throws(HTTPError) in
            for check in guards { try check(request) }
        }
    }

    public mutating func get(_ template: String, _ handler: @escaping Handler) { add("GET", template, handler) }
    public mutating func post(_ template: String, _ handler: @escaping Handler) { add("POST", template, handler) }
    public mutating func put(_ template: String, _ handler: @escaping Handler) { add("PUT", template, handler) }
    public mutating func delete(_ template: String, _ handler: @escaping Handler) { add("DELETE", template, handler) }
    public mutating func patch(_ template: String, _ handler: @escaping Handler) { add("PATCH", template, handler) }

    /// The result of matching a path: the node's handlers and template, and the parameters.
    public struct Match: Sendable {
        public let template: String
        public let parameters: [String: String]
        fileprivate let handlers: [String: Handler]
        fileprivate let guards: [String: Guard]

        /// Runs the guard of the route for the request's method (`HEAD` as `GET`), if it has one.
        /// Needs only the request head, so a refusal can be sent before the body is read.
        public func admit(_ request: Request) throws(HTTPError) {
            let method = handlers[request.method] == nil && request.method == "HEAD" ? "GET" : request.method
            try guards[method]?(request)
        }

        /// Methods with a handler here, `HEAD` included where `GET` is, sorted.
        public var allowedMethods: [String] {
            var methods = Set(handlers.keys)
            if methods.contains("GET") { methods.insert("HEAD") }
            return methods.sorted()
        }
    }

    /// Finds the route template matching `segments`, or nil.
    public func match(_ segments: [String]) -> Match? {
        var current = 0
        var parameters: [String: String] = [:]
        for segment in segments {
            if let next = nodes[current].literals[segment] {
                current = next
            } else if let (name, next) = nodes[current].parameter {
                parameters[name] = segment
                current = next
            } else {
                return nil
            }
        }
        let node = nodes[current]
        guard !node.handlers.isEmpty else { return nil }
        return Match(template: node.template, parameters: parameters, handlers: node.handlers, guards: node.guards)
    }

    /// Answers a request: routes it, runs the handler, turns thrown errors into problem answers.
    /// Sets the request's ``Request/route`` and ``Request/parameters`` on the way.
    public func respond(to request: inout Request) -> Response {
        guard let match = match(request.pathSegments) else {
            return HTTPError.notFound(request.path).response
        }
        request.route = match.template
        request.parameters = match.parameters
        guard let handler = match.handlers[request.method]
                ?? (request.method == "HEAD" ? match.handlers["GET"] : nil) else {
            return HTTPError.methodNotAllowed(request.method, allowed: match.allowedMethods).response
        }
        do {
            try match.admit(request)
            return try handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch {
            return HTTPError.internalError.response
        }
    }
}
