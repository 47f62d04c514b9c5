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
        lists.commitLater(writes, conditions: conditions) { [log, faults] outcome in
            switch outcome {
            case .success(let result):
                faults.wrote(log: log)
                do throws(HTTPError) {
                    var response = try respond(result)
                    // Read-your-writes: a read elsewhere with minVersion=this sees the write.
                    response.headers.add("Sectional-Version", String(result.sequence))
                    answer.complete(response)
                } catch {
                    answer.complete(error.response)
                }
            case .failure(let error):
                answer.complete(faults.refusal(for: error, write: true, log: log).response)
            }
        }
        return .later(answer)
    }

    /// Runs a store operation that writes on the writer thread, as record writes and definition
    /// changes run, and answers with `respond(result)` when it is done: a store that keeps a
    /// write waiting (busy or locked, up to its time-out) holds no server thread meanwhile. A
    /// store failure is answered as in ``write(_:respond:)``.
    func storeLater<T: Sendable>(_ body: @escaping @Sendable () throws(StoreError) -> T,
                                 respond: @escaping @Sendable (T) throws(HTTPError) -> Response) -> Response {
        let answer = DeferredResponse()
        lists.onWriter { [log, faults] in
            let result: T
            do throws(StoreError) {
                result = try body()
            } catch {
                answer.complete(faults.refusal(for: error, write: true, log: log).response)
                return
            }
            faults.wrote(log: log)
            do throws(HTTPError) {
                answer.complete(try respond(result))
            } catch {
                answer.complete(error.response)
            }
        }
        return .later(answer)
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
}
