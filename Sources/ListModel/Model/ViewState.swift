/// A view's per-list state: which sections are hidden, by section key, so it
/// survives data changes that shift section indexes.
public struct ViewState: Sendable, Hashable {
    /// Keys of hidden sections. Keys of sections that do not exist are kept and ignored.
    public var hidden: Set<String>

    /// A view hiding the sections with these keys (none by default).
    public init(hidden: Set<String> = []) { self.hidden = hidden }

    /// `true` when the section with this key is hidden.
    @inline(__always) public func isHidden(_ key: String) -> Bool { !hidden.isEmpty && hidden.contains(key) }

    /// A deterministic fingerprint of the hidden set (for ETags).
    public var fingerprint: UInt64 {
        var h = FNV1a()
        if hidden.isEmpty { return h.value }  // the default view: no sort, no allocation
        for k in hidden.sorted(by: codePointLess) { h.combine(k) }
        return h.value
    }
}
