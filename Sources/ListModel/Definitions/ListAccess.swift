/// Who may read a list.
public enum ListAccess: String, Sendable, Equatable {
    /// Anyone, without a token (the default).
    case `public`
    /// Signed-in users (a valid user token) and the service token.
    case users
}

/// How a per-user list splits its records: each user sees only the records whose `field`
/// equals the value of their token's `claim` (compared as JSON values). Literal sections are
/// the same for every user.
public struct ListScope: Sendable, Equatable {
    /// The record field that names the owner (a field path such as `owner` or `owner.id`).
    public let field: FieldPath
    /// The token claim whose value selects the records (usually `sub`).
    public let claim: String

    /// A scope splitting records by `field`, matched against the token claim `claim`.
    public init(field: FieldPath, claim: String) {
        self.field = field
        self.claim = claim
    }
}
