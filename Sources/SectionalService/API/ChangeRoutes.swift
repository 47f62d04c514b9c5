import HTTPServer
import ListModel
import ListStore

/// `GET /v1/lists/{list}/changes?since=V[&view=ID][&maxChanges=N]`: the batch update from the
/// client's version to the current one, computed from the retained history once per version,
/// view and `maxChanges`, and kept with the version's other answers (``AnswerCache``).
///
/// Kept because every client that follows the list asks it at once: each event stream announces
/// the new version to all of them, and a mirror syncs from the version it has. A diff over many
/// versions is far dearer than a page — 999 writes into 100,000 rows, some 1,000 changes: 736
/// answers a second with every one computed (`make bench`, run 90, 44.7 ms p50 with 32
/// connections), where the C server sent the same bytes 35,244 times.
struct ChangeRoutes {
    let context: ServiceContext
    let lists: ListRoutes

    static let defaultMaxChanges = 1_000

    func register(on router: inout Router) {
        router.get("/v1/lists/{list}/changes") { request in try changes(request) }
    }

    private func changes(_ request: Request) throws(HTTPError) -> Response {
        let target = try lists.target(request)
        let current = target.version
        guard let text = request.query("since") else {
            throw Problem.invalidVersion("The query parameter 'since' (the version the client has) is required.")
        }
        guard let since = ServiceContext.version(text) else {
            throw Problem.invalidVersion("since must be a whole number from 0, not '\(Problem.echo(text))'.")
        }
        guard since <= current else { throw ahead(since, of: current) }
        let maxChanges = try request.queryInteger("maxChanges", default: Self.defaultMaxChanges)
        let key = AnswerCache.Key(kind: "changes", view: target.viewFingerprint, viewID: target.viewID, size: maxChanges,
                                  token: String(since))
        let answer = target.state.answers.answer(for: key) {
            var update: BatchUpdate? = BatchUpdate()
            if since > 0 && since <= context.lists.store.sequenceStart {
                // Never this store's: a memory store restarted numbers from the clock, and `since`
                // is an earlier process's version, whatever this list held at a version before it.
                update = nil
            } else if since < current {
                update = context.lists.history(of: target.state)?.changes(since: since, upTo: current, limit: maxChanges)?
                    .batchUpdate(view: target.view, maxChanges: maxChanges)
            }
            var w = JSONWriter(capacity: 256)
            ListSnapshot.writeChangesAnswer(update, list: target.name, from: since, to: current, into: &w)
            return AnswerCache.Answer(body: w.bytes)
        }
        try EntityTag.checkUntagged(request)
        var response = answer.response
        target.state.restrict(&response)
        return response
    }

    /// The answer for `since` past the list's version `current`: on a store other instances
    /// write, a version this instance has not applied that the database has is `503
    /// not-caught-up` (the read was parked a second for it first, ``ReadYourWrites``); anything
    /// else is a version the list never had (the server went back to another database, or one
    /// put back from a copy): `400 invalid-version`, which tells the client to reload. A database
    /// that cannot say is taken to have it: a reload is the dearer mistake.
    private func ahead(_ since: Int64, of current: Int64) -> HTTPError {
        let store = context.lists.store, applied = context.lists.applied.current
        if store is ChangeLog, since > applied, since <= (try? store.lastSequence()) ?? .max {
            return Problem.notCaughtUp(since, applied: applied)
        }
        return Problem.invalidVersion("since=\(since) is newer than the list's version \(current).")
    }
}
