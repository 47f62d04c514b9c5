/// Routes requests by method and path template, e.g. `/v1/lists/{list}/rows/{rowId}`.
///
/// Literal segments win over `{parameter}` segments. A path that matches no template answers
/// `404 not-found`; a path that matches with another method answers `405 method-not-allowed`
/// with an `Allow` header. `HEAD` is answered by the `GET` handler (libmicrohttpd drops the body).
/// Build the router once, then hand it to the server: it is immutable while serving.
///
/// Routes added inside ``guarded(_:by:_:)`` carry that guard: it runs before their handler, and
/// ``Match/admit(_:)`` runs it from the request head alone (before a body is read), so a route
/// of a guarded group cannot forget its check. ``routes`` lists every route with the names of
/// its guards, so a test can hold that every route of a kind (e.g. every write) is guarded.
public struct Router: Sendable {
    /// A route handler: plain synchronous code on a server thread. Throw ``HTTPError`` for problems.
    public typealias Handler = @Sendable (Request) throws -> Response
    /// A check of the request head that runs before a handler; throws to refuse the request.
    public typealias Guard = @Sendable (Request) throws(HTTPError) -> Void

    /// One path segment's node. Its literal children and methods are searched in order, not
    /// hashed: a node has a few of each, and comparing a short segment costs less than hashing
    /// it (dictionaries here were a tenth of a warm per-user first page's instructions).
    private struct Node: Sendable {
        var literals: [(segment: String, node: Int)] = []
        var parameter: (name: String, node: Int)?
        var methods: [Method] = []
        var template = ""

        func literal(_ segment: String) -> Int? {
            for literal in literals where literal.segment == segment { return literal.node }
            return nil
        }
    }

    /// A method's handler at a node, and its guard.
    fileprivate struct Method: Sendable {
        let method: HTTPMethod
        let handler: Handler
        let check: Guard?
    }

    /// One registered route: its method, template and the names of its guards, outermost first.
    public struct Route: Sendable, Equatable {
        public let method: HTTPMethod
        public let template: String
        public let guards: [String]
    }

    private var nodes = [Node()]
    /// The guards of the groups being registered, outermost first.
    private var activeGuards: [(name: String, check: Guard)] = []
    /// Every route added, in the order added (a replaced route keeps its first place).
    public private(set) var routes: [Route] = []

    /// Query parameter names a request may give more than once (a list of filters, say); any
    /// other name given twice is answered `400 invalid-request` before the handler runs, since
    /// which value is meant is not for the server to guess.
    public var repeatableQuery: @Sendable (String) -> Bool = { _ in false }

    public init() {}

    /// Adds a handler for `method` on `template`. Adding the same method and template twice replaces it.
    public mutating func add(_ method: HTTPMethod, _ template: String, _ handler: @escaping Handler) {
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
            } else if let next = nodes[current].literal(String(segment)) {
                current = next
            } else {
                nodes.append(Node())
                nodes[current].literals.append((String(segment), nodes.count - 1))
                current = nodes.count - 1
            }
        }
        nodes[current].methods.removeAll { $0.method == method }
        nodes[current].methods.append(Method(method: method, handler: handler, check: Self.combined(activeGuards.map(\.check))))
        nodes[current].template = template
        let route = Route(method: method, template: template, guards: activeGuards.map(\.name))
        if let index = routes.firstIndex(where: { $0.method == method && $0.template == template }) {
            routes[index] = route
        } else {
            routes.append(route)
        }
    }

    /// Registers the routes `register` adds with `check` as their guard (after any guard of an
    /// enclosing group); `name` names the guard in ``routes``.
    public mutating func guarded(_ name: String, by check: @escaping Guard, _ register: (inout Router) -> Void) {
        activeGuards.append((name, check))
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

    public mutating func get(_ template: String, _ handler: @escaping Handler) { add(.get, template, handler) }
    public mutating func post(_ template: String, _ handler: @escaping Handler) { add(.post, template, handler) }
    public mutating func put(_ template: String, _ handler: @escaping Handler) { add(.put, template, handler) }
    public mutating func delete(_ template: String, _ handler: @escaping Handler) { add(.delete, template, handler) }
    public mutating func patch(_ template: String, _ handler: @escaping Handler) { add(.patch, template, handler) }

    /// The result of matching a path: the node's handlers and template, and the parameters.
    public struct Match: Sendable {
        public let template: String
        /// The values of the template's `{name}` segments, in path order.
        public let parameters: [(name: String, value: String)]
        fileprivate let methods: [Method]

        /// The route for `method`: its own, or `GET`'s for `HEAD`.
        fileprivate func route(for method: HTTPMethod) -> Method? {
            for route in methods where route.method == method { return route }
            return method == .head ? route(for: .get) : nil
        }

        /// Runs the guard of the route for the request's method (`HEAD` as `GET`), if it has one.
        /// Needs only the request head, so a refusal can be sent before the body is read.
        public func admit(_ request: Request) throws(HTTPError) {
            try route(for: request.method)?.check?(request)
        }

        /// Methods with a handler here, `HEAD` included where `GET` is, sorted.
        public var allowedMethods: [HTTPMethod] {
            var methods = Set(methods.map(\.method))
            if methods.contains(.get) { methods.insert(.head) }
            return methods.sorted { $0.rawValue < $1.rawValue }
        }
    }

    /// Finds the route template matching `segments`, or nil.
    public func match(_ segments: [String]) -> Match? {
        var current = 0
        var parameters: [(name: String, value: String)] = []
        for segment in segments {
            if let next = nodes[current].literal(segment) {
                current = next
            } else if let (name, next) = nodes[current].parameter {
                // Room for every segment at the first: a row-id look-up's two parameters grew
                // the array twice (an allocation each).
                if parameters.isEmpty { parameters.reserveCapacity(segments.count) }
                parameters.append((name, segment))
                current = next
            } else {
                return nil
            }
        }
        let node = nodes[current]
        guard !node.methods.isEmpty else { return nil }
        return Match(template: node.template, parameters: parameters, methods: node.methods)
    }

    /// `OPTIONS *`, a question about the server as a whole (RFC 9110 §9.3.7): `204` with every
    /// method some route takes (`HEAD` where `GET` is, and `OPTIONS`).
    private var serverOptions: Response {
        var methods: Set<HTTPMethod> = [.options]
        for node in nodes { methods.formUnion(node.methods.map(\.method)) }
        if methods.contains(.get) { methods.insert(.head) }
        var answer = Response(status: .noContent)
        answer.headers.add("Allow", methods.sorted { $0.rawValue < $1.rawValue }.map(\.rawValue).joined(separator: ", "))
        return answer
    }

    /// Answers a request: routes it, runs the handler, turns thrown errors into problem answers.
    /// Sets the request's ``Request/route`` and ``Request/parameters`` on the way. A target that is
    /// not UTF-8 once percent-decoded (``Request/isUTF8``) is refused before it is routed.
    public func respond(to request: inout Request) -> Response {
        guard request.isUTF8 else { return HTTPError.targetNotUTF8.response }
        guard let match = match(request.pathSegments) else {
            if request.method == .options && request.path == "*" { return serverOptions }
            return HTTPError.notFound(request.path).response
        }
        request.route = match.template
        request.parameters = match.parameters
        guard let route = match.route(for: request.method) else {
            // OPTIONS is answered on every path that has routes (RFC 9110 §9.3.7), so a 405's
            // Allow names it too.
            let allowed = match.allowedMethods.contains(.options) ? match.allowedMethods : match.allowedMethods + [.options]
            if request.method == .options {
                var answer = Response(status: .noContent)
                answer.headers.add("Allow", allowed.map(\.rawValue).joined(separator: ", "))
                return answer
            }
            return HTTPError.methodNotAllowed(request.method, allowed: allowed).response
        }
        do {
            try route.check?(request)
            if let name = request.repeatedQueryName(except: repeatableQuery) { throw HTTPError.repeatedParameter(name) }
            return try route.handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch {
            return HTTPError.internalError.response
        }
    }
}
