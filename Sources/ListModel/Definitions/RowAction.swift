/// One swipe action of a row (`actions`): its id (what the app acts on), its title and style.
public struct RowAction: Sendable, Equatable {
    /// How an app draws the action.
    public enum Style: String, Sendable {
        /// The platform's normal action.
        case `default`
        /// A destructive action (red, e.g. Delete).
        case destructive
    }

    /// Unique among the row's actions.
    public let id: String
    /// The button text (a row template; an action whose title renders empty is left out).
    public let title: Template
    /// `style` (default `default`).
    public let style: Style
}
