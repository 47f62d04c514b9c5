/// A row's place in a list: `section` and `row`, both 0-based, as in UIKit.
public struct ListIndexPath: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The section index.
    public var section: Int
    /// The row index within the section.
    public var row: Int

    /// An index path from its two parts.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Section first, then row.
    public static func < (a: ListIndexPath, b: ListIndexPath) -> Bool {
        (a.section, a.row) < (b.section, b.row)
    }

    /// `(section, row)`.
    public var description: String { "(\(section), \(row))" }
}
