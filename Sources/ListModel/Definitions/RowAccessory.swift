/// What a row shows at its trailing edge (`accessory`). A row without one has none.
public enum RowAccessory: String, Sendable, CaseIterable {
    /// Nothing (written as no `accessory` member).
    case none
    /// A chevron: tapping opens something.
    case disclosure
    /// A check mark: the row is chosen.
    case checkmark
    /// An info button.
    case detail
    /// A switch showing the row's `value`.
    case toggle

    /// The error message for a name that is not an accessory.
    static let expected = "expected \"none\", \"disclosure\", \"checkmark\", \"detail\" or \"toggle\""
}
