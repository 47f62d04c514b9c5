import ListModel

/// Who is asking, as established at the edge from `Authorization: Bearer`. The store and the
/// model never see tokens, only this value.
public enum Caller: Sendable, Equatable {
    /// No token.
    case anonymous
    /// A verified user token: its subject and every claim of its payload.
    case user(subject: String, claims: JSONObject)
    /// The service token: record writes, admin routes, and every list (a per-user list read as
    /// a given user with `?user=`).
    case service

    /// The value of a claim of a user token (`sub` is the subject); nil for other callers.
    public func claim(_ name: String) -> JSONValue? {
        guard case .user(let subject, let claims) = self else { return nil }
        return name == "sub" ? .string(subject) : claims[name]
    }
}
