import HTTPServer
import ListStore

/// What every route needs: the lists, the views, the event streams, the log and the write guard.
struct ServiceContext: Sendable {
    let lists: ViewModelStore
    let views: ViewRegistry
    let log: Log
    let auth: BearerAuth
    let authenticator: Authenticator
    let events: EventHub

    /// Commits `writes` on the writer thread and answers with `respond(result)` when done; the
    /// server thread is free meanwhile. A storage failure is logged and answered `500 internal`.
    func write(_ writes: [ViewModelStore.Write], conditions: [WriteCondition] = [],
               respond: @escaping @Sendable (CommitResult) throws(HTTPError) -> Response) -> Response {
        let answer = DeferredResponse()
        lists.commitLater(writes, conditions: conditions) { [log] outcome in
            switch outcome {
            case .success(let result):
                do throws(HTTPError) {
                    answer.complete(try respond(result))
                } catch {
                    answer.complete(error.response)
                }
            case .failure(let error):
                log.error("storage failure", ["error": .text(error.description)])
                answer.complete(HTTPError.internalError.response)
            }
        }
        return .later(answer)
    }

    /// Runs a store operation; a storage failure is logged and answered `500 internal`.
    func storing<T>(_ body: () throws(StoreError) -> T) throws(HTTPError) -> T {
        do {
            return try body()
        } catch {
            log.error("storage failure", ["error": .text(error.description)])
            throw HTTPError.internalError
        }
    }
}
