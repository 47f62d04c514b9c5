import HTTPServer
import ListModel

/// The list reads of SPEC §4: index, outline, pages, section ranges and look-ups.
struct ListRoutes {
    let context: ServiceContext
    var lists: ViewModelStore { context.lists }
    var views: ViewRegistry { context.views }

    /// The list a request names, seen through its `?view=` (or the definition's default view).
    struct Target {
        let state: ListState
        let view: ViewState
        let viewID: String?
        var snapshot: ListSnapshot { state.snapshot }
        var name: String { state.name }
        var version: Int64 { state.version }
    }

    func target(_ request: Request) throws(HTTPError) -> Target {
        let name = try request.name("list", kind: "list")
        guard let state = lists.list(name) else { throw Problem.listNotFound(name) }
        guard let viewID = request.query("view") else {
            return Target(state: state, view: state.definition.defaultView, viewID: nil)
        }
        guard let view = views.use(viewID, list: name) else { throw Problem.viewNotFound(viewID) }
        return Target(state: state, view: view.state, viewID: viewID)
    }

    func register(on router: inout Router) {
        router.get("/v1/lists") { _ in index() }
        router.get("/v1/lists/{list}") { request in
            let t = try target(request)
            return jsonAnswer(capacity: 256 + 256 * t.snapshot.sectionCount) {
                t.snapshot.writeOutlineAnswer(list: t.name, version: t.version, view: t.view, into: &$0)
            }
        }
        router.get("/v1/lists/{list}/rows") { request in try page(request) }
        router.get("/v1/lists/{list}/sections/{index}/rows") { request in
            let t = try target(request)
            let index = try request.integer("index", what: "The section index")
            let start = try request.queryInteger("start", default: 0)
            let count = min(try request.queryInteger("count", default: PageSize.defaultSize), PageSize.maximum)
            guard let range = t.snapshot.sectionRange(index, start: start, count: count, view: t.view) else {
                throw Problem.sectionNotFound(index, count: t.snapshot.sectionCount)
            }
            return jsonAnswer(capacity: 512 + 400 * range.count) {
                t.snapshot.writeSectionRangeAnswer(range, list: t.name, version: t.version, into: &$0)
            }
        }
        router.get("/v1/lists/{list}/sections") { request in
            let t = try target(request)
            let type = try request.requiredQuery("type")
            return jsonAnswer { t.snapshot.writeSectionIndexesAnswer(type: type, list: t.name, version: t.version, into: &$0) }
        }
        router.get("/v1/lists/{list}/index-path") { request in
            let t = try target(request)
            let sectionType = try request.requiredQuery("sectionType")
            let rowType = try request.requiredQuery("rowType")
            guard let location = t.snapshot.locate(sectionType: sectionType, rowType: rowType, view: t.view) else {
                throw Problem.indexPathNotFound(sectionType, rowType)
            }
            return jsonAnswer { t.snapshot.writeLocationAnswer(location, list: t.name, version: t.version, into: &$0) }
        }
        router.get("/v1/lists/{list}/tags/{tag}") { request in
            let t = try target(request)
            let tag = try request.integer("tag", what: "The tag")
            guard let location = t.snapshot.locate(tag: tag, view: t.view) else { throw Problem.tagNotFound(tag) }
            return jsonAnswer { t.snapshot.writeLocationAnswer(location, list: t.name, version: t.version, tag: tag, into: &$0) }
        }
        router.get("/v1/lists/{list}/rows/{rowId}") { request in
            let t = try target(request)
            let id = try request.name("rowId", kind: "row")
            guard let location = t.snapshot.locate(rowID: id, view: t.view) else { throw Problem.rowNotFound(id) }
            return jsonAnswer { t.snapshot.writeLocationAnswer(location, list: t.name, version: t.version, into: &$0) }
        }
    }

    private func index() -> Response {
        jsonAnswer { w in
            w.beginObject()
            w.key("lists")
            w.beginArray()
            for state in lists.allLists() {
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
    }

    private func page(_ request: Request) throws(HTTPError) -> Response {
        let t = try target(request)
        let size: Int
        do {
            size = try PageSize.parse(request.query("pageSize"))
        } catch {
            throw Problem.invalidPageSize(error.text)
        }
        let page: Page
        do {
            page = try t.snapshot.page(size: size, token: request.query("pageToken"), view: t.view,
                                       binding: PageBinding(list: t.name, view: t.viewID))
        } catch .malformed {
            throw Problem.invalidPageToken("The pageToken is not one this server wrote.")
        } catch {
            throw Problem.invalidPageToken("The pageToken belongs to another list or view.")
        }
        var response = jsonAnswer(capacity: 1024 + 420 * page.rowCount) {
            t.snapshot.writePageAnswer(page, list: t.name, version: t.version, into: &$0)
        }
        if let next = page.nextPageToken {
            var link = "/v1/lists/\(t.name)/rows?pageToken=\(next)"
            if let size = request.query("pageSize") { link += "&pageSize=\(size)" }
            if let view = t.viewID { link += "&view=\(view)" }
            response.headers.add("Link", "<\(link)>; rel=\"next\"")
        }
        return response
    }
}
