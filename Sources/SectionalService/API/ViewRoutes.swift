import HTTPServer
import ListModel
import ListStore

/// Views: a client's hidden sections, by key, so they survive data changes.
struct ViewRoutes {
    let context: ServiceContext
    var lists: ViewModelStore { context.lists }
    var views: ViewRegistry { context.views }

    func register(on router: inout Router) {
        router.post("/v1/lists/{list}/views") { request in
            let readable = try context.readableList(request)
            try EntityTag.checkUntagged(request)  // a view has no tag: only `If-Match: *` holds
            let state = readable.state
            var hidden = state.definition.defaultHidden.map(\.string).sorted()
            if let body = try request.jsonObjectBody(optional: true) {
                for member in body where member.key != "hidden" {
                    throw Problem.invalidRequest("Unknown member '\(Problem.echo(member.key))'; a view body is {\"hidden\": [section keys]}.")
                }
                if let value = body["hidden"] {
                    guard let keys = value.arrayValue, keys.allSatisfy({ $0.stringValue != nil }) else {
                        throw Problem.invalidRequest("'hidden' must be an array of section keys (strings).")
                    }
                    hidden = keys.compactMap(\.stringValue)
                }
            }
            let (name, owner, views, keys) = (state.name, readable.viewOwner, views, hidden)
            // The user the service token named: the view is that user's, found only through it.
            var user: [UInt8] = []
            if owner != nil, let named = request.query("user") {
                user.append(contentsOf: "?user=".utf8)
                ListRoutes.appendLinkEncoded(named, to: &user)
            }
            let userQuery = String(decoding: user, as: UTF8.self)
            return context.viewChangeLater({ () throws(StoreError) in try views.create(list: name, owner: owner, hidden: keys) },
                                           wrote: { $0 != nil }) { view throws(HTTPError) in
                guard let view else { throw Problem.tooManyHiddenKeys(bytes: views.hiddenBytesLimit) }
                var response = Self.viewAnswer(view, status: .created)
                response.headers.add("Location", "/v1/lists/\(name)/views/\(view.id)\(userQuery)")
                return response
            }
        }
        router.get("/v1/lists/{list}/views/{view}") { request in
            let readable = try context.readableList(request)
            let id = request.parameter("view")
            let view = try context.view(id, of: readable)
            // A view has no tag: only `If-Match: *` holds — once the answer would be a 2xx.
            try EntityTag.checkUntagged(request)
            var response = Self.viewAnswer(view, status: .ok)
            readable.state.restrict(&response)
            return response
        }
        router.delete("/v1/lists/{list}/views/{view}") { request in
            let readable = try context.readableList(request)
            let id = request.parameter("view")
            // A view has no tag: only `If-Match: *` holds — on a view that exists (a missing one
            // is `404` whatever the condition says).
            _ = try context.view(id, of: readable)
            try EntityTag.checkUntagged(request)
            let (name, owner, views) = (readable.state.name, readable.viewOwner, views)
            return context.viewChangeLater({ () throws(StoreError) in try views.delete(id, list: name, owner: owner) },
                                           wrote: { $0 }) { deleted throws(HTTPError) in
                guard deleted else { throw Problem.viewNotFound(id) }
                return .empty()
            }
        }
        router.put("/v1/lists/{list}/views/{view}/sections/{index}") { request in
            try setHidden(request) { request throws(HTTPError) in
                guard let body = try request.jsonObjectBody(), let hidden = body["hidden"]?.boolValue,
                      body.keys.allSatisfy({ $0 == "hidden" || $0 == "key" }), body["key"].map({ $0.stringValue != nil }) ?? true else {
                    throw Problem.invalidRequest(#"The body must be {"hidden": true} or {"hidden": false}, and may name the section's "key"."#)
                }
                return (body["key"]?.stringValue, { _ in hidden })
            }
        }
        router.post("/v1/lists/{list}/views/{view}/sections/{index}/toggle") { request in
            try setHidden(request) { _ throws(HTTPError) in (nil, { !$0 }) }
        }
    }

    /// Hides or shows one section of a view, as `asked` reads the request (after the list and
    /// its caller are checked, as every list route checks them first): `change` maps "hidden
    /// now" to "hidden next". With `expected`, only while section `index` is the one with that
    /// key: else `412 precondition-failed` with the list's `version` (the list moved on since the
    /// client read it; a client that toggled blind would have to flip the wrong section back).
    /// The answer is the section as the view now sees it, marked with the list's language.
    private func setHidden(_ request: Request,
                           asked: (Request) throws(HTTPError) -> (expected: String?, change: @Sendable (Bool) -> Bool))
        throws(HTTPError) -> Response {
        let readable = try context.readableList(request)
        let (expected, change) = try asked(request)
        let state = readable.state
        let id = request.parameter("view")
        let index = try request.integer("index", what: "The section index")
        _ = try context.view(id, of: readable)
        guard let section = state.snapshot.section(at: index) else {
            throw Problem.sectionNotFound(request.parameter("index"), count: state.snapshot.sectionCount)
        }
        if let expected, CodePointKey(section.key) != CodePointKey(expected) {
            throw Problem.sectionMoved(index, key: section.key, expected: expected, version: state.version)
        }
        // Once the view and the section are found (a condition applies only to what would be a
        // 2xx); with the list's version, as every 412 of this route has.
        do {
            try EntityTag.checkUntagged(request)
        } catch {
            var refused = error
            refused.extensions.append(("version", String(state.version)))
            throw refused
        }
        let (key, owner, views) = (section.key, readable.viewOwner, views)
        return context.viewChangeLater({ () throws(StoreError) in
            try views.setHidden(key, in: id, list: state.name, owner: owner, change: change)
        }, wrote: { if case .changed = $0 { true } else { false } }) { outcome throws(HTTPError) in
            let view: ViewRegistry.View
            switch outcome {
            case .changed(let changed): view = changed
            case .notFound: throw Problem.viewNotFound(id)
            case .tooManyHiddenKeys: throw Problem.tooManyHiddenKeys(bytes: views.hiddenBytesLimit)
            }
            // The section is in the list's language: say which, as every read of the list does.
            var response = jsonAnswer { w in
                w.beginObject()
                w.key("list"); w.string(state.name)
                w.key("version"); w.int64(state.version)
                w.key("view"); w.string(view.id)
                w.key("section"); state.snapshot.writeSection(index, view: view.state, into: &w)
                w.endObject()
            }
            state.markLanguage(&response)
            return response
        }
    }

    private static func viewAnswer(_ view: ViewRegistry.View, status: HTTPStatus) -> Response {
        jsonAnswer(status: status) { w in
            w.beginObject()
            w.key("view"); w.string(view.id)
            w.key("list"); w.string(view.list)
            w.key("hidden")
            w.beginArray()
            for key in view.hidden { w.string(key) }
            w.endArray()
            w.endObject()
        }
    }
}
