import HTTPServer
import ListStore

/// What every route needs: the lists, the views, the event streams, the log and the write guard.
struct ServiceContext: Sendable {
    let lists: ViewModelStore
    let views: ViewRegistry
    let log: Log
    let auth: BearerAuth
    let events: EventHub

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
