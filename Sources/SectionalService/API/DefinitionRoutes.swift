import HTTPServer
import ListModel
import ListStore

/// `GET/PUT/DELETE /v1/lists/{list}/definition`: a list's definition, changed at run time.
///
/// `GET` is read like the list (a list read by users needs a user token or the service token).
/// `PUT` and `DELETE` need the service token. A `PUT` body is a list definition as in the
/// config file's `lists.<name>`, validated the same way: every problem answers together, as
/// `400 invalid-definition` with `errors: [{"path", "message"}]` (paths from `$`, the body).
/// Answers carry the definition's `ETag` and changes honour `If-Match` / `If-None-Match`
/// (``DefinitionConditions``).
struct DefinitionRoutes {
    let context: ServiceContext
    private var lists: ViewModelStore { context.lists }
    private var serviceOnly: ServiceTokenGuard { ServiceTokenGuard(authenticator: context.authenticator) }

    func register(on router: inout Router) {
        router.get("/v1/lists/{list}/definition") { request in try read(request) }
        router.guarded(ServiceTokenGuard.name, by: serviceOnly.check) { router in
            router.put("/v1/lists/{list}/definition") { request in try put(request) }
            router.delete("/v1/lists/{list}/definition") { request in try delete(request) }
        }
    }

    private func read(_ request: Request) throws(HTTPError) -> Response {
        try context.requireMinVersion(request)
        let name = try request.name("list", kind: "list")
        guard let found = lists.definitionOrigin(name) else { throw Problem.listNotFound(name) }
        if found.definition.access == .users {
            let caller = try context.authenticator.caller(request)
            guard context.mayRead(found.definition, caller: caller) else { throw Authenticator.tokenNeeded(name) }
        }
        let tag = found.runtime ? DefinitionConditions.tag(revision: found.revision) : DefinitionConditions.tag(config: found.definition.fingerprint)
        var answer = EntityTag.answer(request, tag: tag) {
            Self.answer(name: name, definition: found.definition, runtime: found.runtime, revision: found.revision)
        }
        if found.definition.access == .users { CachePolicy.markPrivate(&answer) }
        return answer
    }

    private func put(_ request: Request) throws(HTTPError) -> Response {
        let name = try request.name("list", kind: "list")
        guard let body = try request.jsonBody() else { throw Problem.invalidJSON("The body must be a list definition.") }
        let definition: ListDefinition
        do {
            definition = try ListDefinitions.decode(name: name, body, path: "$", zones: TimeZones.offsets)
        } catch {
            throw Self.invalidDefinition(error)
        }
        return change(name, to: definition, if: DefinitionConditions.condition(request)) { change in
            var response = Self.answer(name: name, definition: definition, runtime: true, revision: change.stored.revision,
                                       version: change.stored.sequence, status: change.created ? .created : .ok)
            if change.created { response.headers.add("Location", "/v1/lists/\(name)") }
            response.headers.add("ETag", DefinitionConditions.tag(revision: change.stored.revision))
            return response
        }
    }

    private func delete(_ request: Request) throws(HTTPError) -> Response {
        let name = try request.name("list", kind: "list")
        guard let found = lists.definitionOrigin(name), found.runtime else {
            throw HTTPError(.notFound, "list-not-found", detail: "The list '\(Problem.echo(name))' has no run-time definition to remove.")
        }
        return change(name, to: nil, if: DefinitionConditions.condition(request)) { _ in .empty() }
    }

    /// Runs the change on the writer thread, when `condition` holds, and answers when it is
    /// stored and served: `404 list-not-found` when a removal found no run-time definition
    /// (before the condition is looked at), `412 precondition-failed` when the condition failed.
    private func change(_ name: String, to definition: ListDefinition?, if condition: DefinitionCondition?,
                        respond: @escaping @Sendable (ViewModelStore.DefinitionChange) -> Response) -> Response {
        let answer = DeferredResponse()
        lists.changeDefinitionLater(name, to: definition, if: condition) { [context] outcome in
            context.complete(answer, with: outcome, wrote: { if case .changed = $0 { true } else { false } }) { outcome throws(HTTPError) in
                switch outcome {
                case .changed(let change):
                    var response = respond(change)
                    response.headers.add("Sectional-Version", String(change.stored.sequence))
                    return response
                case .nothingToRemove:
                    throw HTTPError(.notFound, "list-not-found", detail: "The list '\(Problem.echo(name))' has no run-time definition to remove.")
                case .conditionFailed:
                    throw DefinitionConditions.failed(name)
                }
            }
        }
        return .later(answer)
    }

    /// `{"list","revision","version"?,"source","definition"}`: `version`, the change number a
    /// write made (as its `Sectional-Version`), in a write's answer only, as every write's body has.
    static func answer(name: String, definition: ListDefinition, runtime: Bool, revision: Int64, version: Int64? = nil,
                       status: HTTPStatus = .ok) -> Response {
        jsonAnswer(status: status) { w in
            w.beginObject()
            w.key("list"); w.string(name)
            w.key("revision"); w.int64(revision)
            if let version { w.key("version"); w.int64(version) }
            w.key("source"); w.string(runtime ? "runtime" : "config")
            w.key("definition"); w.value(definition.source)
            w.endObject()
        }
    }

    /// `400 invalid-definition` listing every problem with its JSON path.
    static func invalidDefinition(_ errors: DefinitionErrors) -> HTTPError {
        var w = JSONWriter()
        w.beginArray()
        for error in errors.errors {
            w.beginObject()
            w.key("path"); w.string(error.path)
            w.key("message"); w.string(error.message)
            w.endObject()
        }
        w.endArray()
        let count = errors.errors.count
        return HTTPError(.badRequest, "invalid-definition", title: "Invalid definition",
                         detail: "The definition has \(counted(count, "problem")); see errors.",
                         extensions: [("errors", String(decoding: w.bytes, as: UTF8.self))])
    }
}
