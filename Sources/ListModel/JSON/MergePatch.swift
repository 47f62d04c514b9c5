/// JSON Merge Patch (RFC 7396): how a `PATCH` body changes a record.
///
/// A patch that is an object changes the target member by member: `null` removes a member, an
/// object is merged into the member recursively (a member that is not an object is replaced by
/// `{}` first), anything else (arrays included) replaces it. A patch that is not an object
/// replaces the whole target. Members keep their order; new ones are appended.
public enum MergePatch {
    /// `target` with `patch` applied.
    public static func apply(_ patch: JSONValue, to target: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var result = target.objectValue ?? JSONObject()
        // In one pass over both (not a look-up per patch member, which made a 130,000-member
        // patch take minutes on the writer's thread).
        result.update(with: changes) { old, change in change.isNull ? .none : apply(change, to: old ?? .null) }
        return .object(result)
    }

    /// The object `target` with the object `patch` applied.
    public static func apply(_ patch: JSONObject, to target: JSONObject) -> JSONObject {
        apply(.object(patch), to: .object(target)).objectValue ?? JSONObject()
    }
}
