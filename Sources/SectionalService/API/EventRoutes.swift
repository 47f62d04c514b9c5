import HTTPServer

/// `GET /v1/lists/{list}/events`: Server-Sent Events of the list's versions (a per-user list's:
/// the caller's partition's); `503
/// too-many-event-streams` when `server.maxEventStreams` are open, `503 draining` once the
/// server is stopping. A stream opened with a user token ends once that token's `exp` (plus the
/// leeway) has passed, at the next keep-alive (within 15 s).
struct EventRoutes {
    let context: ServiceContext

    /// The version a reconnecting client says it heard last (`Last-Event-ID`), when it is one.
    static func lastEventID(_ request: Request) -> Int64? {
        request.headers["Last-Event-ID"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
    }

    func register(on router: inout Router) {
        router.get("/v1/lists/{list}/events") { request in
            let readable = try context.readableList(request)
            let state = readable.state
            // A view named is checked as every read checks it (`404 view-not-found`), though the
            // stream is of the list's versions whatever is hidden: a client naming a deleted view
            // is told so.
            if let viewID = request.query("view") { _ = try context.view(viewID, of: readable) }
            let name = MaterializationKey(list: state.name, partition: state.partition).streamName
            try EntityTag.checkUntagged(request)
            let lastEventID = Self.lastEventID(request)
            // A stream read with a user token ends when the token is no longer accepted: what it
            // follows is decided when it opens, so a user whose token ran out would otherwise go
            // on hearing a private list's versions. The client opens it again with a new token.
            // (Found before the stream is registered: nothing may throw after that.)
            let until = state.definition.access == .public ? nil : context.authenticator.acceptedUntil(try context.authenticator.caller(request))
            let stream: StreamBody
            // The list's version, read once the stream is registered; and whether the list
            // changed since the look-up above, so that this stream may follow what it no longer
            // is (another definition, another partition, a list gone or no longer the caller's):
            // a definition change's event that came before the stream registered never reached
            // it, and it would have waited, silent, under a name no event is sent to.
            var moved = false
            do throws(EventHub.Refusal) {
                stream = try context.events.subscribe(stream: name, list: state.name, lastEventID: lastEventID, until: until) {
                    guard let now = try? context.readableList(request).state else {
                        moved = true
                        return state.version
                    }
                    moved = now.servedFingerprint != state.servedFingerprint
                        || MaterializationKey(list: now.name, partition: now.partition).streamName != name
                    return now.version
                }
            } catch {
                switch error {
                case .full: throw Problem.tooManyEventStreams(limit: context.events.maxStreams)
                case .closed: throw Problem.draining()
                }
            }
            // Greeted, then ended: the client opens it again (after the `retry:` wait) and is
            // answered by the list as it is now.
            if moved { stream.close() }
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/event-stream")
            headers.add("Cache-Control", state.definition.access == .users ? "private, no-store" : "no-store")
            headers.add("X-Accel-Buffering", "no")
            return Response(status: .ok, headers: headers, stream: stream)
        }
    }
}
