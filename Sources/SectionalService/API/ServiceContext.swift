import HTTPServer
import ListStore

/// What every route needs: the lists, the views, the event streams, the log, and who is calling.
///
/// A class: every route holds it and the closures a route registers capture the route, so a read
/// copies it about ten times (callgrind, a warm per-user page) — one reference each, instead of a
/// retain and a release of every member.
final class ServiceContext: Sendable {
    let lists: ViewModelStore
    let views: ViewRegistry
    let log: Log
    /// Who sent a request (`caller(_:)`), from its bearer token: the service token or a user token.
    let authenticator: Authenticator
    let events: EventHub
    let faults: StorageFaults

    init(lists: ViewModelStore, views: ViewRegistry, log: Log, authenticator: Authenticator, events: EventHub, faults: StorageFaults) {
        self.lists = lists
        self.views = views
        self.log = log
        self.authenticator = authenticator
        self.events = events
        self.faults = faults
    }

    /// Commits `writes` on the writer thread and answers with `respond(result)` when done; the
    /// server thread is free meanwhile. A store failure is answered per ``StorageFaults``
    /// (`503 storage-unavailable` for a passing fault, else `500 internal`).
    func write(_ writes: [ViewModelStore.Write], conditions: [WriteCondition] = [],
               respond: @escaping @Sendable (CommitResult) throws(HTTPError) -> Response) -> Response {
        let answer = DeferredResponse()
        lists.commitLater(writes, conditions: conditions) { [self] outcome in
            // A write whose condition failed, or that changed nothing, proved nothing of the store.
            complete(answer, with: outcome, wrote: { $0.conflicts.isEmpty && $0.changedAnything }) { result throws(HTTPError) in
                var response = try respond(result)
                // Read-your-writes: a read elsewhere with minVersion=this sees the write.
                response.headers.add("Sectional-Version", String(result.sequence))
                return response
            }
        }
        return .later(answer)
    }

    /// Runs a store operation that writes on the writer thread, as record writes and definition
    /// changes run, and answers with `respond(result)` when it is done: a store that keeps a
    /// write waiting (busy or locked, up to its time-out) holds no server thread meanwhile. A
    /// store failure is answered as in ``write(_:respond:)``. `wrote(result)` says whether the
    /// store was written (which clears a storage fault in force; an answer that wrote nothing,
    /// such as a view not found, proves nothing of the store).
    func storeLater<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T, wrote: @escaping @Sendable (T) -> Bool,
                                 respond: @escaping @Sendable (T) throws(HTTPError) -> Response) -> Response {
        let answer = DeferredResponse()
        lists.onWriter { [self] in
            complete(answer, with: Result { () throws(StoreError) in try body() }, wrote: wrote, respond: respond)
        }
        return .later(answer)
    }

    /// ``storeLater(_:respond:)`` for a change of a view. On a store other instances share, a
    /// successful answer carries `Sectional-Version`: the database's last change number once the
    /// change is in (the view change's own number or later), so a read with `minVersion` on
    /// another instance sees the view as changed. Without it (a store that logs no view changes,
    /// or a database that cannot say just then) there is none.
    func viewChangeLater<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T, wrote: @escaping @Sendable (T) -> Bool,
                                      respond: @escaping @Sendable (T) throws(HTTPError) -> Response) -> Response {
        let store = lists.store, shared = store is ChangeLog
        return storeLater({ () throws(StoreError) -> (T, Int64?) in
            (try body(), shared ? try? store.lastSequence() : nil)
        }, wrote: { wrote($0.0) }) { changed throws(HTTPError) in
            var response = try respond(changed.0)
            if let version = changed.1 { response.headers.add("Sectional-Version", String(version)) }
            return response
        }
    }

    /// Completes `answer` with what a write on the writer thread came to: `respond(result)` after
    /// a success (which clears a storage fault, when `wrote(result)` says the store was written;
    /// an `HTTPError` it throws is the answer), or a store failure as ``StorageFaults`` answers it.
    func complete<T>(_ answer: DeferredResponse, with outcome: Result<T, StoreError>, wrote: (T) -> Bool,
                     respond: (T) throws(HTTPError) -> Response) {
        switch outcome {
        case .success(let result):
            if wrote(result) { faults.wrote(log: log) }
            do throws(HTTPError) {
                answer.complete(try respond(result))
            } catch {
                answer.complete(error.response)
            }
        case .failure(let error):
            answer.complete(faults.refusal(for: error, write: true, log: log).response)
        }
    }

    /// Runs a store operation that only reads; a store failure is answered as in
    /// ``write(_:respond:)`` but counts as no refused write.
    func reading<T>(_ body: () throws(StoreError) -> T) throws(HTTPError) -> T {
        do {
            return try body()
        } catch {
            throw faults.refusal(for: error, write: false, log: log)
        }
    }

    /// View `id` of `readable` (its list, as its caller reads it), its use recorded; `404
    /// view-not-found` when it does not exist for them, `503` when the store that would say
    /// cannot answer (another instance's view, not in memory here, while the database is away).
    func view(_ id: String, of readable: ReadableList) throws(HTTPError) -> ViewRegistry.View {
        let (views, name, owner) = (views, readable.state.name, readable.viewOwner)
        let found = try reading { () throws(StoreError) in try views.use(id, list: name, owner: owner) }
        guard let found else { throw Problem.viewNotFound(id) }
        return found
    }
}
