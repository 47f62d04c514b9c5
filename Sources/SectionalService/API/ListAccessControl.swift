import HTTPServer
import ListModel
import ListStore

/// A list as one caller may read it: the state they see (the list, or their partition of a
/// per-user list, searched and filtered when the request asks) and whose views they use.
struct ReadableList {
    let state: ListState
    /// The user the caller's views belong to; nil on lists that are the same for everyone's
    /// views (public lists, and the service token reading without `?user=`).
    let viewOwner: String?
}

extension ServiceContext {
    /// The list a request names (`{list}`), as its caller may read it.
    ///
    /// - Public lists ignore `Authorization` entirely (v1 behaviour, and no token check on the
    ///   hot path).
    /// - `access: users` lists need a valid user token or the service token: none answers `401`
    ///   with `WWW-Authenticate: Bearer`, a bad one `401` `invalid_token`.
    /// - Per-user lists show the caller's partition: a user's by their token's claim (the list's
    ///   `scope.claim`); the service token's by `?user=VALUE` (required, `400` without it), the
    ///   partition of that string. A user may name only their own claim's value (another is
    ///   `403 forbidden`). Views belong to the partition, so the service token reading as
    ///   `?user=VALUE` sees the views of the users whose claim has that value.
    ///
    /// A language or search that raced a change of the list's definition is read again from the
    /// start, under the new definition (``ViewModelStore/localized(_:language:)``,
    /// ``ViewModelStore/searched(_:query:items:)``), the caller checked against it: each time
    /// round is a definition change committed meanwhile.
    func readableList(_ request: Request) throws(HTTPError) -> ReadableList {
        try requireMinVersion(request)
        while true {
            guard let found = try resolved(request) else { continue }
            if let state = try served(found.state, request) { return ReadableList(state: state, viewOwner: found.viewOwner) }
        }
    }

    /// The partition a service-token read names with `?user=VALUE`: nil without one; an empty
    /// value is `400 invalid-request` (no claim is empty).
    static func namedUser(_ request: Request) throws(HTTPError) -> String? {
        guard let named = request.query("user") else { return nil }
        guard !named.isEmpty else { throw Problem.invalidRequest("The query parameter 'user' must not be empty.") }
        return named
    }

    /// The list, or the caller's partition of it, before the request's language and search; nil
    /// when its definition changed while it was looked up (look again).
    private func resolved(_ request: Request) throws(HTTPError) -> ReadableList? {
        let name = try request.name("list", kind: "list")
        // A public list is read at once from its state (which carries its definition); a per-user
        // list has no state of its own, and is found in the catalog below.
        let listed = lists.list(name)
        if let state = listed, state.definition.access == .public {
            return ReadableList(state: state, viewOwner: nil)
        }
        guard let found = lists.access(of: name) else { throw Problem.listNotFound(name) }
        if found.access == .public {
            // Created (or made public) since the look-up above: served once its state is in
            // place, as public only if its state still says so (changed again meanwhile: looked
            // up again, from the start).
            guard let state = lists.list(name) else { throw Problem.listNotFound(name) }
            guard state.definition.access == .public else { return nil }
            return ReadableList(state: state, viewOwner: nil)
        }
        let caller = try authenticator.caller(request)
        let named = request.query("user")
        switch caller {
        case .anonymous: throw Authenticator.tokenNeeded(name)
        case .service: _ = try Self.namedUser(request)
        case .user: break
        }
        guard let scope = found.scope else {
            // A list for users, the same for each: views are their caller's (the subject's).
            guard let state = listed else { throw Problem.listNotFound(name) }
            var owner = named
            if case .user(let subject, _) = caller {
                if let named, !Self.names(named, subject) { throw Self.notYours }
                owner = subject
            }
            return ReadableList(state: state, viewOwner: owner)
        }
        let value: JSONValue
        if case .user = caller {
            guard let claim = caller.claim(scope.claim) else {
                throw Problem.forbidden("The token has no '\(Problem.echo(scope.claim))' claim, which this list is split by.")
            }
            value = claim
        } else {
            guard let named else {
                throw Problem.invalidRequest("'\(Problem.echo(name))' is a per-user list: the service token reads it as a user, with ?user=VALUE (the value of the claim it is split by).")
            }
            value = .string(named)
        }
        guard let partition = PartitionKey(value) else {
            throw Problem.forbidden("The token's '\(Problem.echo(scope.claim))' claim is not a string, number or boolean.")
        }
        // A user names only their own partition: the claim's value, as text.
        if case .user = caller, let named, !Self.names(named, partition.valueText) { throw Self.notYours }
        // Chosen by the claim the list was split by when looked up above; its definition may have
        // changed since (deleted, made public, split by another claim): then looked up again.
        guard let state = try reading({ () throws(StoreError) in try lists.partition(partition, ofList: name, splitBy: scope) }) else {
            return nil
        }
        return ReadableList(state: state, viewOwner: partition.owner)
    }

    /// A user token naming a user other than itself with `?user=`.
    private static var notYours: HTTPError { Problem.forbidden("Only the service token may read a list as another user.") }

    /// Whether `?user=` text names `value`: the same code points (as partitions are told apart).
    private static func names(_ named: String, _ value: String) -> Bool { named.utf8.elementsEqual(value.utf8) }

    /// `state` as the request asks for it: in its language, searched and filtered; nil when the
    /// list's definition changed since `state` was read (read the request again).
    private func served(_ state: ListState, _ request: Request) throws(HTTPError) -> ListState? {
        // The warm search this thread served last, asked again (a list in one language).
        if state.definition.languages.count <= 1, let recent = lists.recentSearch(of: state, items: request.query) { return recent }
        let query = try ListQuery.requested(by: request, of: state.definition)
        guard let localized = try inLanguage(state, request) else { return nil }
        guard let query else { return localized }
        return try reading { () throws(StoreError) in try lists.searched(localized, query: query, items: request.query) }
    }

    /// `state` in the language `Accept-Language` picks among the list's languages; nil when the
    /// list's definition changed since `state` was read.
    private func inLanguage(_ state: ListState, _ request: Request) throws(HTTPError) -> ListState? {
        let languages = state.definition.languages
        guard languages.count > 1 else { return state }
        let language = AcceptLanguage.choose(request.headers.list("Accept-Language"), among: languages)
        guard language != state.definition.language else { return state }
        return try reading { () throws(StoreError) in try lists.localized(state, language: language) }
    }

    /// Whether the caller of `request` may read `definition` (for `GET /v1/lists`): public lists
    /// always; others with a valid user token or the service token.
    func mayRead(_ definition: ListDefinition, caller: Caller) -> Bool {
        switch (definition.access, caller) {
        case (.public, _), (_, .service), (_, .user): true
        case (.users, .anonymous): false
        }
    }
}

extension ServiceContext {
    /// How long a read waits for the version it asks for.
    static let minVersionWaitSeconds = 1.0

    /// The version a read asks for with `minVersion=V` and `Sectional-Min-Version: V`: the larger
    /// when it names both; nil without one, or when one is not a whole number
    /// (``requireMinVersion(_:)`` refuses that).
    static func minVersion(askedBy request: Request) -> Int64? {
        let named = namedMinVersion(request)
        return named.refused == nil ? named.version : nil
    }

    /// `text` as a version: digits only, within `Int64`.
    static func version(_ text: String) -> Int64? {
        text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int64(text) : nil
    }

    /// What a read says of the version it asks for — `minVersion`, and every
    /// `Sectional-Min-Version` line joined as one list (RFC 9110 §5.3), so that two lines are
    /// refused as `5, 6` on one is, rather than the first one taken: the larger version named,
    /// or the text that is no version. Reads both without an array (it runs on every request).
    private static func namedMinVersion(_ request: Request) -> (version: Int64?, refused: String?) {
        var version: Int64?
        func take(_ text: String?) -> String? {
            guard let text else { return nil }
            guard let named = Self.version(text) else { return text }
            version = max(version ?? named, named)
            return nil
        }
        let refused = take(request.query("minVersion")) ?? take(request.headers.list("Sectional-Min-Version"))
        return (version, refused)
    }

    /// Read-your-writes: a read with `minVersion=V` (or `Sectional-Min-Version: V`) is answered
    /// only once this instance has applied version V, else `503 not-caught-up` with
    /// `Retry-After: 1`. The wait of up to a second comes before, without a thread: the server's
    /// pipeline parks such a read until V is applied or the second is over
    /// (``ReadYourWrites``), then runs it, and this decides. A write's answer says its version
    /// in `Sectional-Version`. A read that names a version both ways waits for the larger: each
    /// is a write the client wants to see (the header set by a client library, the parameter by
    /// the app).
    func requireMinVersion(_ request: Request) throws(HTTPError) {
        let named = Self.namedMinVersion(request)
        if let refused = named.refused {
            throw Problem.invalidVersion("minVersion must be a whole number from 0, not '\(Problem.echo(refused))'.")
        }
        guard let version = named.version else { return }
        let applied = lists.applied.current
        guard applied >= version else {
            throw Problem.notCaughtUp(version, applied: applied)
        }
    }
}
