import Foundation
import HTTPServer
import ListModel
import ListStore

/// The list reads: index, outline, pages, section ranges and look-ups.
struct ListRoutes {
    let context: ServiceContext
    var lists: ViewModelStore { context.lists }
    var views: ViewRegistry { context.views }

    /// The list a request names, as its caller may read it, seen through its `?view=` (or the
    /// definition's default view).
    struct Target {
        let state: ListState
        let view: ViewState
        let viewID: String?
        /// ``view``'s fingerprint.
        let viewFingerprint: UInt64
        var snapshot: ListSnapshot { state.snapshot }
        var name: String { state.name }
        var version: Int64 { state.version }
        var entityTag: String {
            guard viewID != nil else { return state.defaultViewEntityTag }
            return EntityTag.of(version: version, definition: state.definition.fingerprint, view: viewFingerprint,
                                partition: state.partition?.fingerprint, query: state.queryFingerprint)
        }
        /// What page tokens are bound to: the list, its definition, the user's partition, the
        /// search and filters, and the view.
        var pageBinding: PageBinding { PageBinding(list: state.pageBindingList, view: viewID) }

        /// The binding a page token of this list and view had under the definition `fingerprint`.
        func binding(definition fingerprint: UInt64) -> PageBinding {
            PageBinding(list: state.pageBindingList(definition: fingerprint), view: viewID)
        }
    }

    /// A list read: resolves the list and view, answers `304` to a matching `If-None-Match`,
    /// otherwise runs `read` and tags its answer.
    private func read(_ request: Request, _ read: (Request, Target) throws -> Response) throws -> Response {
        let t = try target(request)
        var response = try EntityTag.answer(request, tag: t.entityTag) { try read(request, t) }
        t.state.restrict(&response)
        return response
    }

    /// Registers a list read on `template`.
    private func get(_ router: inout Router, _ template: String, _ handler: @escaping @Sendable (Request, Target) throws -> Response) {
        router.get(template) { request in try read(request, handler) }
    }

    func target(_ request: Request) throws(HTTPError) -> Target {
        let readable = try context.readableList(request)
        let state = readable.state
        guard let viewID = request.query("view") else {
            return Target(state: state, view: state.definition.defaultView, viewID: nil, viewFingerprint: state.defaultViewFingerprint)
        }
        let view = try context.view(viewID, of: readable)
        return Target(state: state, view: view.state, viewID: viewID, viewFingerprint: view.state.fingerprint)
    }

    func register(on router: inout Router) {
        router.get("/v1/lists") { request in try index(request) }
        get(&router, "/v1/lists/{list}") { request, t in
            t.state.answers.answer(for: AnswerCache.Key(kind: "outline", view: t.viewFingerprint)) {
                var w = JSONWriter(capacity: 256 + 256 * t.snapshot.sectionCount)
                t.snapshot.writeOutlineAnswer(list: t.name, version: t.version, view: t.view, into: &w)
                return AnswerCache.Answer(body: w.bytes)
            }.response
        }
        get(&router, "/v1/lists/{list}/rows") { request, t in try page(request, t) }
        get(&router, "/v1/lists/{list}/sections/{index}/rows") { request, t in
            let index = try request.integer("index", what: "The section index")
            let start = try request.queryInteger("start", default: 0)
            let count = try request.queryCount("count")
            guard let range = t.snapshot.sectionRange(index, start: start, count: count, view: t.view) else {
                throw Problem.sectionNotFound(request.parameter("index"), count: t.snapshot.sectionCount)
            }
            return jsonAnswer(capacity: 512 + 400 * range.count) {
                t.snapshot.writeSectionRangeAnswer(range, list: t.name, version: t.version, into: &$0)
            }
        }
        get(&router, "/v1/lists/{list}/sections") { request, t in
            let type = try request.requiredQuery("type")
            return jsonAnswer { t.snapshot.writeSectionIndexesAnswer(type: type, list: t.name, version: t.version, into: &$0) }
        }
        get(&router, "/v1/lists/{list}/index-path") { request, t in
            let sectionType = try request.requiredQuery("sectionType")
            let rowType = try request.requiredQuery("rowType")
            guard let location = t.snapshot.locate(sectionType: sectionType, rowType: rowType, view: t.view) else {
                throw Problem.indexPathNotFound(sectionType, rowType)
            }
            return jsonAnswer { t.snapshot.writeLocationAnswer(location, list: t.name, version: t.version, into: &$0) }
        }
        get(&router, "/v1/lists/{list}/tags/{tag}") { request, t in
            let tag = try request.integer("tag", what: "The tag")
            guard let location = t.snapshot.locate(tag: tag, view: t.view) else { throw Problem.tagNotFound(request.parameter("tag")) }
            return jsonAnswer { t.snapshot.writeLocationAnswer(location, list: t.name, version: t.version, tag: tag, into: &$0) }
        }
        get(&router, "/v1/lists/{list}/rows/{rowId}") { request, t in
            let id = try request.name("rowId", kind: "row")
            guard let location = t.snapshot.locate(rowID: id, view: t.view) else { throw Problem.rowNotFound(id) }
            return jsonAnswer { t.snapshot.writeLocationAnswer(location, list: t.name, version: t.version, into: &$0) }
        }
    }

    /// The lists the caller may read. A per-user list shows the caller's partition (the
    /// service token's with `?user=`; without it, the list as it is for a user with no records).
    private func index(_ request: Request) throws(HTTPError) -> Response {
        try context.requireMinVersion(request)
        let caller = try context.authenticator.caller(request)
        let named = if case .service = caller { try ServiceContext.namedUser(request) } else { String?.none }
        var states: [ListState] = []
        // Listed again from the start when a per-user list's definition changed (how it is split,
        // or whether it is there) while it was read.
        listing: while true {
            states = []
            for definition in lists.definitions where context.mayRead(definition, caller: caller) {
                if let scope = definition.scope {
                    let value: JSONValue? = switch caller {
                    case .service: named.map { .string($0) }
                    default: caller.claim(scope.claim)
                    }
                    let partition: PartitionKey
                    if let key = value.flatMap(PartitionKey.init) {
                        partition = key
                    } else if case .user = caller {
                        continue   // a token without the claim (or not a scalar) reads it as 403: not listed
                    } else {
                        partition = .nobody
                    }
                    let state = try context.reading { () throws(StoreError) in
                        try lists.partition(partition, ofList: definition.name, splitBy: scope)
                    }
                    guard let state else { continue listing }
                    states.append(state)
                } else if let state = lists.list(definition.name), context.mayRead(state.definition, caller: caller) {
                    // Checked again: the state may be of a definition changed since (made private).
                    states.append(state)
                }
            }
            break
        }
        // Once the read is known to succeed: only an answer that would be a 2xx is conditional.
        try EntityTag.checkUntagged(request)
        var answer = jsonAnswer { w in
            w.beginObject()
            w.key("lists")
            w.beginArray()
            for state in states {
                w.beginObject()
                w.key("name"); w.string(state.name)
                w.key("title"); w.string(state.definition.title ?? state.name)
                w.key("version"); w.int64(state.version)
                w.key("sectionCount"); w.int(state.snapshot.sectionCount)
                w.key("rowCount"); w.int(state.snapshot.rowCount(in: state.definition.defaultView))
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
        // Which lists, and each per-user list's counts, follow the caller.
        answer.headers.add("Vary", "Authorization")
        if caller != .anonymous { answer.headers.set("Cache-Control", "private, no-cache") }
        return answer
    }

    /// Whether `token` was written for this list and view under a definition it served before.
    private func staleDefinition(_ token: String, _ t: Target) -> Bool {
        lists.retiredFingerprints(t.name).contains { fingerprint in
            (try? PageToken.decode(token, binding: t.binding(definition: fingerprint))) != nil
        }
    }

    /// Appends a query parameter's name or value, percent-encoded for a `Link` target, to `bytes`:
    /// every byte of its UTF-8 but the unreserved ones (RFC 3986 §2.3) as `%XX`. Byte by byte, or
    /// the text's bytes at once when nothing needs encoding (the usual search word), since every
    /// warm search page writes it.
    static func appendLinkEncoded(_ text: String, to bytes: inout [UInt8]) {
        let plain = text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isUnreserved) } ?? text.utf8.allSatisfy(isUnreserved)
        guard !plain else {
            bytes.append(contentsOf: text.utf8)
            return
        }
        bytes.reserveCapacity(bytes.count + text.utf8.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            }
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private func page(_ request: Request, _ t: Target) throws(HTTPError) -> Response {
        let size: Int
        let sizeText = request.query("pageSize")
        do {
            size = try PageSize.parse(sizeText)
        } catch {
            throw Problem.invalidPageSize(error.text)
        }
        // An empty token asks for the first page, as a client that keeps the last page's (absent)
        // `nextPageToken` as "" sends it (AIP-158).
        let token = request.query("pageToken").flatMap { $0.isEmpty ? nil : $0 }
        // Read here, not in the closure below: capturing `request` there copied the whole request
        // (a retain and a release of each of its strings and arrays) on every page read.
        let plain = !Self.carriesLinkParameters(request.query)
        let key = AnswerCache.Key(kind: "page", view: t.viewFingerprint, viewID: t.viewID, size: size, token: token)
        let answer = try t.state.answers.answer(for: key) { () throws(HTTPError) -> AnswerCache.Answer in
            let page: Page
            do {
                page = try t.snapshot.page(size: size, token: token, view: t.view, binding: t.pageBinding)
            } catch let error as PageTokenError {
                if error == .wrongBinding, let token, staleDefinition(token, t) {
                    throw HTTPError(.badRequest, "invalid-page-token",
                                    detail: "The list's definition changed since this walk began: reload the list from its first page.",
                                    extensions: [("reload", "true")])
                }
                throw Problem.invalidPageToken(error == .malformed ? "The pageToken is not one this server wrote."
                                                                  : "The pageToken belongs to another list, view, language or search.")
            } catch {
                throw Problem.invalidPageToken("The pageToken could not be read.")
            }
            var w = JSONWriter(capacity: t.snapshot.pageAnswerBytesBound(page, list: t.name))
            t.snapshot.writePageAnswer(page, list: t.name, version: t.version, into: &w)
            guard let next = page.nextPageToken, plain else { return AnswerCache.Answer(body: w.bytes, nextPageToken: page.nextPageToken) }
            // No parameter of the query to repeat (`plain`).
            let link = Self.nextLink(list: t.name, token: next, pageSize: sizeText, query: [], viewID: t.viewID)
            return AnswerCache.Answer(body: w.bytes, nextPageToken: next, link: link, linkPageSize: sizeText)
        }
        var response = answer.response
        if let next = answer.nextPageToken {
            // The kept link when this request spells it the same way (a warm page builds none).
            if let link = answer.link, answer.linkPageSize == sizeText, plain {
                response.headers.add("Link", link)
            } else {
                response.headers.add("Link", Self.nextLink(list: t.name, token: next, pageSize: sizeText, query: request.query, viewID: t.viewID))
            }
        }
        return response
    }

    /// Whether the request has parameters its next link repeats besides the page size and view:
    /// a search, filters, and the user whose partition the service token reads (the answer, and
    /// so a kept link, is shared by every caller of the partition).
    private static func carriesLinkParameters(_ items: [(name: String, value: String)]) -> Bool {
        items.contains { isLinkParameter($0.name) }
    }

    private static func isLinkParameter(_ name: String) -> Bool {
        RecentSearch.isSearchParameter(name) || name == "user"
    }

    /// `</v1/lists/NAME/rows?pageToken=NEXT[&pageSize=…][&view=…][&q=…][&filter.…=…][&user=…]>; rel="next"`,
    /// written as bytes into one buffer (string interpolation grew and copied it piece by piece:
    /// a few percent of a warm first page).
    static func nextLink(list: String, token next: String, pageSize: String?, query items: [(name: String, value: String)],
                         viewID: String?) -> String {
        var link: [UInt8] = []
        link.reserveCapacity(64 + list.utf8.count + next.utf8.count + (viewID?.utf8.count ?? 0))
        link.append(contentsOf: "</v1/lists/".utf8)
        link.append(contentsOf: list.utf8)
        link.append(contentsOf: "/rows?pageToken=".utf8)
        link.append(contentsOf: next.utf8)
        if let size = pageSize {
            link.append(contentsOf: "&pageSize=".utf8)
            link.append(contentsOf: size.utf8)
        }
        if let view = viewID {
            link.append(contentsOf: "&view=".utf8)
            link.append(contentsOf: view.utf8)
        }
        for (name, value) in items where isLinkParameter(name) {
            link.append(UInt8(ascii: "&"))
            appendLinkEncoded(name, to: &link)
            link.append(UInt8(ascii: "="))
            appendLinkEncoded(value, to: &link)
        }
        link.append(contentsOf: ">; rel=\"next\"".utf8)
        return String(decoding: link, as: UTF8.self)
    }
}
